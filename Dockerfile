# syntax=docker/dockerfile:1
#
# The vppnet image: vppnet-agent (the DaemonSet's container), the vppnet CLI (its init container
# runs `vppnet install-cni`), and the vppnet-cni binary that install-cni copies to each host.
#
#   docker build -t vppnet:dev .        (deploy/README.md: loading it into kind, pushing it)
#
# It runs as root, on purpose: the agent creates veth pairs and moves them into pods' network
# namespaces, enters those namespaces (setns), and talks to VPP's root-owned API socket; none of
# that works for a non-root user without the same capabilities, which the DaemonSet grants by
# running it privileged anyway. No HEALTHCHECK: Kubernetes probes /healthz and /readyz itself.

ARG NODE_MAJOR=20

# ---- build: compile, make vppnet-cni self-contained, keep only the runtime dependencies --------
FROM node:${NODE_MAJOR}-bookworm AS build
WORKDIR /src
# Dependencies first, so this layer is reused until package.json or the lockfile change.
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
# `npm run build:cni-sea` bundles dist/src/cni/main.js with its dependencies and injects it into a
# copy of this stage's node binary (a Node.js single executable application): vppnet-cni then runs
# on the host, where the kubelet's runtime calls it, without Node.js or node_modules there.
# CNI_SEA_OUTPUT is where that script writes the binary.
ARG CNI_SEA_OUTPUT=dist/sea/vppnet-cni
RUN npm run build \
 && npm run build:cni-sea \
 && test -x "${CNI_SEA_OUTPUT}" \
 && install -D -m 0755 "${CNI_SEA_OUTPUT}" /out/vppnet-cni \
 && npm prune --omit=dev --no-audit --no-fund \
 && chmod 0755 dist/bundle/vppnet-agent.js dist/src/cli/vppnet.js

# ---- cni-check: vppnet-cni must run on a host without Node.js --------------------------------
# A plain Debian, like a hypervisor: the binary answers VERSION or the build fails here. The
# runtime stage copies the binary from this stage, so the check always runs.
FROM debian:bookworm-slim AS cni-check
COPY --from=build /out/vppnet-cni /vppnet-cni
RUN CNI_COMMAND=VERSION /vppnet-cni < /dev/null

# ---- runtime ----------------------------------------------------------------------------------
FROM node:${NODE_MAJOR}-bookworm-slim AS runtime
# iproute2: `ip` for veth pairs and addresses in pods' namespaces. util-linux: nsenter (an
# essential package, already in the slim image; named so that stays true). nftables: `nft`, whose
# netdev chain on each veth's host end drops what the host's own stack would otherwise receive
# from a VM or pod (src/netns/host-end.ts): without it no veth port or veth-mode pod attaches.
# Versions are Debian bookworm's current ones: pinning them would break the build at each
# Debian point release.
# hadolint ignore=DL3008
RUN apt-get update \
 && apt-get install -y --no-install-recommends iproute2 util-linux nftables \
 && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production
WORKDIR /opt/vppnet/app
COPY --from=build /src/package.json ./
# node_modules and dist/src: the CLI, which runs unbundled.
COPY --from=build /src/node_modules ./node_modules
COPY --from=build /src/dist/src ./dist/src
# The agent: one ES module with its dependencies (scripts/bundle-agent.mjs, part of npm run build),
# which starts in about half the time of the same modules loaded one by one (bench/results/
# 2026-12-07-agent-bundle.md). etcd's protos come compiled into it, as a generated descriptor.
COPY --from=build /src/dist/bundle ./dist/bundle
# `vppnet plan` without --config plans the bundled example.
COPY --from=build /src/examples ./examples
COPY --from=cni-check /vppnet-cni /opt/vppnet/bin/vppnet-cni
RUN ln -s /opt/vppnet/app/dist/bundle/vppnet-agent.js /usr/local/bin/vppnet-agent \
 && ln -s /opt/vppnet/app/dist/src/cli/vppnet.js /usr/local/bin/vppnet \
 && vppnet-agent --help > /dev/null \
 && vppnet version > /dev/null
# The agent handles SIGTERM itself (clean stop within 25 s) and waits for the `ip`/nsenter
# children it starts, so it runs as PID 1 without an init.
ENTRYPOINT ["vppnet-agent"]
