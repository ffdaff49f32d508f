// Command passwordhash prints the bcrypt hash of each password it reads on
// standard input, one a line, in the same order. Dex keeps its static
// users' passwords only as bcrypt hashes, and the main module has no
// bcrypt, so tests/support/servers runs this (go run, in this module,
// which has golang.org/x/crypto through Dex) to write the users of the
// Dex it starts.
package main

import (
	"bufio"
	"fmt"
	"os"

	"golang.org/x/crypto/bcrypt"
)

// cost is bcrypt's default, 10: the least Dex accepts (a cheaper hash
// makes Dex refuse the login).
const cost = bcrypt.DefaultCost

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 4096), 1<<20)
	out := bufio.NewWriter(os.Stdout)
	for in.Scan() {
		hash, err := bcrypt.GenerateFromPassword(in.Bytes(), cost)
		if err != nil {
			fmt.Fprintf(os.Stderr, "passwordhash: %v\n", err)
			os.Exit(1)
		}
		fmt.Fprintf(out, "%s\n", hash)
	}
	if err := in.Err(); err != nil {
		fmt.Fprintf(os.Stderr, "passwordhash: reading passwords: %v\n", err)
		os.Exit(1)
	}
	if err := out.Flush(); err != nil {
		fmt.Fprintf(os.Stderr, "passwordhash: %v\n", err)
		os.Exit(1)
	}
}
