package gateway

import (
	_ "embed"
	"net/http"
)

// openAPI describes the HTTP API (OpenAPI 3).
//
//go:embed openapi.json
var openAPI []byte

func serveOpenAPI(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Write(openAPI)
}
