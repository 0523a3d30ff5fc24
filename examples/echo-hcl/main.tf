# The echo application, run on this machine: a router with GET /echo in
# front of a function, a key-value store the function writes to, and
# end-to-end tests that `tether test` runs against a deployment of its own.
#
# The function and the tests run `tether runtime ...`, so tether must be on
# PATH (go install ./cmd/tether). Then:
#
#   tether test -C examples/echo-hcl         deploy, test, destroy
#   tether up -C examples/echo-hcl --yes     deploy for real
#   curl "$(tether output -C examples/echo-hcl url)"
#   tether destroy -C examples/echo-hcl --yes

terraform {
  required_providers {
    tether = {
      source = "tetherhq/tether"
    }
  }
}

# Created first, so that the function can capture its url.
resource "tether_router" "main" {}

resource "tether_kv" "store" {}

# A captured property travels as an environment variable named by the
# rule upper(type_id_property): here TETHER_KV_STORE_ENDPOINT and
# TETHER_ROUTER_MAIN_URL. The echo function stores each message in the
# store whose endpoint -kv-env names.
resource "tether_function" "echo" {
  command = ["tether", "runtime", "echo", "-kv-env", "TETHER_KV_STORE_ENDPOINT"]
  env = {
    TETHER_KV_STORE_ENDPOINT = tether_kv.store.endpoint
    TETHER_ROUTER_MAIN_URL   = tether_router.main.url
  }
}

# Last: the route needs both the router and the function.
resource "tether_route" "echo" {
  router_id = tether_router.main.id
  method    = "GET"
  path      = "/echo"
  target    = tether_function.echo.url
}

resource "tether_tester" "e2e" {
  env = {
    TETHER_ROUTER_MAIN_URL   = tether_router.main.url
    TETHER_KV_STORE_ENDPOINT = tether_kv.store.endpoint
  }

  test "echo" {
    command = ["tether", "runtime", "http-get", "-want-body", "Hello Tether!",
    "$TETHER_ROUTER_MAIN_URL/echo?message=Hello%20Tether!"]
  }

  # Runs after "echo": tests run in name order.
  test "last_message" {
    command = ["tether", "runtime", "http-get", "-want-body", "Hello Tether!",
    "$TETHER_KV_STORE_ENDPOINT/v1/kv/last-message"]
  }

  test "unknown_route" {
    command = ["tether", "runtime", "http-get", "-want-status", "404",
    "$TETHER_ROUTER_MAIN_URL/nowhere"]
  }
}

output "url" {
  value = "${tether_router.main.url}/echo?message=Hello"
}
