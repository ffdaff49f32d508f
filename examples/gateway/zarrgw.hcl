# The gateway `make run` starts on this machine: a sample dataset in Zarr
# v3 and the same in v2 (for clients that read only v2), both read-only,
# and a scratch dataset anyone on this machine may write. They live in
# data/ beside this file, made on first start. Each is also an S3 bucket
# of its name on 127.0.0.1:9000.
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

dataset "sample-v2" {
  store        = store.fs.local
  prefix       = "sample_v2.zarr"
  read_only    = true
  consolidated = true # .zmetadata built on the fly
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
  # the same datasets as S3 buckets, for aws-cli, rclone, boto3, GDAL, ...
  s3 {
    listen = "127.0.0.1:9000"
  }
}
