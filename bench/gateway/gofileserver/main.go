// Command gofileserver serves a directory with Go's net/http FileServer
// and nothing else: no access log, checks or metrics. The gateway
// benchmark runs it beside nginx as the floor any Go HTTP server pays on
// this machine, so that the gateway's own cost can be told from net/http's.
//
//	go run ./bench/gateway/gofileserver 127.0.0.1:8081 DIR
package main

import (
	"log"
	"net/http"
	"os"
)

func main() {
	if len(os.Args) != 3 {
		log.Fatal("usage: gofileserver ADDR DIR")
	}
	log.Fatal(http.ListenAndServe(os.Args[1], http.FileServer(http.Dir(os.Args[2]))))
}
