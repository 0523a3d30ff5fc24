// Package azstate keeps Tether's state in an Azure Storage blob
// container, where Terraform's azurerm backend keeps it: a thin adapter
// that gives internal/state/objstate the container's blobs and Terraform's
// lock.
//
// Layout, as Terraform's (PATH is KEY for the default workspace and
// KEYenv:NAME for workspace NAME):
//
//	PATH                       the compacted state (objstate's document)
//	PATH.tether-journal/SEQ    the journal, each blob written once
//	                           (If-None-Match: *)
//	KEY.tether-id              the state's id
//
// Every blob Tether writes carries the SHA-256 of its body in its metadata
// (tethersha256), checked on every read.
//
// The lock is Terraform's: an infinite lease on the state blob at PATH,
// whose id is the lock's ID (a GUID), and the lock record, base64 JSON in
// Terraform's format, in the blob's terraformlockid metadata. Whichever
// tool comes second is refused naming the holder, and either tool's
// force-unlock breaks the other's lock. While Tether holds the lease it
// writes the state blob with it, keeping the record; a delete of the
// leased blob (a takeover setting Terraform's state aside) empties it
// instead, since deleting it would end the lease, and the empty blob is
// deleted once the lease is released. An empty state blob (what
// Terraform's lock leaves where there was no state) reads as no state.
//
// Authentication is the account's access key, a SAS token, or (with
// use_azuread_auth) Azure AD as the Azure CLI's signed-in account; the
// other Azure AD ways and the Resource Manager lookups Terraform can make
// are refused by name (config.go). The blob endpoint is https://ACCOUNT.blob.SUFFIX for the
// environment, or TETHER_AZURERM_BLOB_ENDPOINT.
package azstate
