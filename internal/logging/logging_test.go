package logging

import (
	"io"
	"testing"
)

// Providers' logs are wanted only when TF_LOG_PROVIDER asks for them;
// plugins are started with their logging off otherwise.
func TestProvidersLogged(t *testing.T) {
	for _, tc := range []struct {
		environ []string
		want    bool
	}{
		{nil, false},
		{[]string{"TF_LOG=TRACE"}, false},
		{[]string{"TF_LOG_CORE=DEBUG"}, false},
		{[]string{"TF_LOG=off", "TF_LOG_PROVIDER=off"}, false},
		{[]string{"TF_LOG_PROVIDER="}, false},
		{[]string{"TF_LOG_PROVIDER=DEBUG"}, true},
		{[]string{"TF_LOG_PROVIDER=json"}, true},
		{[]string{"TF_LOG=TRACE", "TF_LOG_PROVIDER=warn"}, true},
	} {
		closeLog, err := Setup(tc.environ, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		if got := ProvidersLogged(); got != tc.want {
			t.Errorf("%q: ProvidersLogged() = %v, want %v", tc.environ, got, tc.want)
		}
		closeLog()
		if ProvidersLogged() {
			t.Errorf("%q: providers still logged after the log was closed", tc.environ)
		}
	}
}
