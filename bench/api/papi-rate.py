#!/usr/bin/env python3
"""VPP's own Python client (vpp_papi, from the VPP source tree) on control_ping, for scale.

    papi-rate.py SOCK sync N        sequential round trips with the synchronous client
    papi-rate.py SOCK asyncio N W   the asyncio client, at most W requests in flight

Prints one line: "<what> n=<n> window=<w> seconds=<s> req_per_s=<r>". vpp_papi comes from
PYTHONPATH (bench/api sets it to the VPP source tree's src/vpp-api/python); the synchronous client
reads VPP's JSON API files from VPP_API_JSON_DIR, the asyncio one fetches them from VPP.
"""
import asyncio
import glob
import os
import sys
import time


def sync(sock, n):
    from vpp_papi import VPPApiClient

    files = glob.glob(os.path.join(os.environ["VPP_API_JSON_DIR"], "**", "*.api.json"), recursive=True)
    c = VPPApiClient(apifiles=files, server_address=sock, use_socket=True)
    c.connect("vppnet-bench-papi")
    try:
        for _ in range(min(n, 500)):
            c.api.control_ping()
        t0 = time.perf_counter()
        for _ in range(n):
            c.api.control_ping()
        s = time.perf_counter() - t0
    finally:
        c.disconnect()
    print(f"papi_sync n={n} window=1 seconds={s:.4f} req_per_s={n / s:.0f}", flush=True)


async def pipelined(sock, n, window):
    from vpp_papi.vpp_papi_async import VPPApiClient

    c = VPPApiClient(server_address=sock)
    if await c.connect("vppnet-bench-papi-async", asyncio.Queue()) != 0:
        raise SystemExit(f"cannot connect to {sock}")

    async def run(count):
        # A done callback per request refills the window: no scan over the pending set.
        loop = asyncio.get_running_loop()
        done = loop.create_future()
        state = {"sent": 0, "replied": 0}

        def send_more(_=None):
            if _ is not None:
                state["replied"] += 1
                if state["replied"] == count and not done.done():
                    done.set_result(None)
            while state["sent"] < count and state["sent"] - state["replied"] < window:
                state["sent"] += 1
                c.api.control_ping().add_done_callback(send_more)

        send_more()
        await done

    await run(min(n, 2000))
    t0 = time.perf_counter()
    await run(n)
    s = time.perf_counter() - t0
    print(f"papi_asyncio n={n} window={window} seconds={s:.4f} req_per_s={n / s:.0f}", flush=True)
    # The client's reader tasks never end by themselves: leave without waiting for them.
    os._exit(0)


if __name__ == "__main__":
    sock, mode, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    if mode == "sync":
        sync(sock, n)
    elif mode == "asyncio":
        asyncio.run(pipelined(sock, n, int(sys.argv[4])))
    else:
        raise SystemExit(f"unknown mode {mode}")
