# The gateway `make run` starts on this machine: a sample array, read-only,
# and a scratch dataset anyone on this machine may write. Both live in
# data/ beside this file, made on first start.
#   bin/zarrgw serve -c examples/gateway/zarrgw.hcl

store "fs" "local" {
  root = "${path.config}/data"
}

dataset "sample" {
  store        = store.fs.local
  prefix       = "sample.zarr"
  read_only    = true
  consolidated = true # zarr.json served with the hierarchy's metadata inline
}

dataset "scratch" {
  store  = store.fs.local
  prefix = "scratch.zarr"
  access {
    read  = ["*"]
    write = ["*"] # anyone: this gateway listens on the loopback address only
  }
}

server {
  listen = "127.0.0.1:8080"
}
