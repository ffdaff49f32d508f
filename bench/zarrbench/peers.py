"""The Python implementations of zarr_benchmarks' workloads, doing the reads
and writes its scripts do (zarr_benchmarks/src/zarr_benchmarks/*.py), one
workload per process so each is timed whole:

    peers.py read-all  IMPL ARRAY_DIR
    peers.py inner     IMPL ARRAY_DIR CONCURRENCY   inner chunk by inner chunk
    peers.py roundtrip IMPL ARRAY_DIR OUT_DIR       read, then write back

IMPL is tensorstore, zarr (zarr-python 3) or zarrs (zarr-python 3 with the
zarrs codec pipeline, configured as the benchmark configures it). Each run
prints the elements it read, so a reader that returned nothing fails.
"""
import asyncio
import itertools
import os
import sys

import numpy as np


def configure_zarr(impl):
    import zarr

    if impl == "zarrs":
        import zarrs  # noqa: F401  registers ZarrsCodecPipeline

        zarr.config.set({
            "threading.num_workers": None,
            "array.write_empty_chunks": False,
            "codec_pipeline": {
                "batch_size": 1,
                "path": "zarrs.ZarrsCodecPipeline",
                "validate_checksums": True,
                "store_empty_chunks": False,
                "chunk_concurrent_minimum": 4,
                "chunk_concurrent_maximum": None,
            },
        })
    else:
        zarr.config.set({"async.concurrency": 10})
    return zarr


def open_zarr(impl, path):
    zarr = configure_zarr(impl)
    return zarr.open_array(store=zarr.storage.LocalStore(path, read_only=True), mode="r")


def open_ts(path):
    import tensorstore as ts

    return ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": path}}).result()


def blocks(shape, block):
    """Every block of the grid, as a tuple of slices, in C order."""
    ranges = [range(0, n, b) for n, b in zip(shape, block)]
    for start in itertools.product(*ranges):
        yield tuple(slice(s, min(s + b, n)) for s, b, n in zip(start, block, shape))


async def read_blocks(read, shape, block, concurrency):
    limit = asyncio.Semaphore(concurrency)
    count = 0

    async def one(sel):
        nonlocal count
        async with limit:
            n = (await read(sel)).size  # awaited first: count += await ... would lose updates
            count += n

    async with asyncio.TaskGroup() as tg:
        for sel in blocks(shape, block):
            tg.create_task(one(sel))
    return count


def read_all(impl, path):
    if impl == "tensorstore":
        return open_ts(path).read().result().size
    return open_zarr(impl, path)[:].size


def inner(impl, path, concurrency):
    if impl == "tensorstore":
        array = open_ts(path)
        block = array.chunk_layout.read_chunk.shape

        async def read(sel):
            return await array[sel].read()
    else:
        array = open_zarr(impl, path)
        block = array.chunks  # the inner chunks of a sharded array

        async def read(sel):
            return await array._async_array.getitem(sel)
    return asyncio.run(read_blocks(read, array.shape, block, concurrency))


def roundtrip(impl, path, out):
    if impl == "tensorstore":
        import tensorstore as ts

        src = open_ts(path)
        dst = ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": out},
                       "create": True, "delete_existing": True, "schema": src.schema}).result()
        # As the benchmark: chunk by chunk, one transaction per batch of
        # as many chunks as there are cores.
        chunks = blocks(src.shape, src.chunk_layout.write_chunk.shape)
        while batch := list(itertools.islice(chunks, os.cpu_count())):  # itertools.batched is 3.12+
            with ts.Transaction() as txn:
                for sel in batch:
                    dst.with_transaction(txn)[sel] = src[sel]
        return src.size
    zarr = configure_zarr(impl)
    src = zarr.open_array(store=zarr.storage.LocalStore(path, read_only=True), mode="r")
    meta = src.metadata.to_dict()
    meta.pop("attributes", None)
    dst = zarr.create_array(store=zarr.storage.LocalStore(out), shape=src.shape, dtype=src.dtype,
                            chunks=src.chunks, shards=src.shards, fill_value=src.fill_value,
                            compressors=src.compressors, serializer=src.serializer if src.shards is None else "auto",
                            overwrite=True)
    dst[:] = src[:]
    return src.size


def main():
    what, impl, path = sys.argv[1:4]
    if what == "read-all":
        n = read_all(impl, path)
    elif what == "inner":
        n = inner(impl, path, int(sys.argv[4]))
    elif what == "roundtrip":
        n = roundtrip(impl, path, sys.argv[4])
    else:
        sys.exit(f"unknown workload {what}")
    print(f"{impl} {what}: {n} elements")
    if n != int(np.prod(open_zarr("zarr", path).shape)):
        sys.exit(f"{impl} {what}: read {n} elements, not the whole array")


if __name__ == "__main__":
    main()
