#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""SimGrid platform of a GPU cluster for tide's simulation build (issue 25).

One MPI rank per GPU.  starpu_smpirun takes this file for the network between the ranks' hosts
and adds, per rank, the node-internal platform of the calibrated machine (host memory and GPU
links from StarPU's bus calibration, $STARPU_HOME/.starpu/sampling/bus/HOST.platform.v4.xml), so
a rank's GPU transfers are the measured H200 ones and only the MPI traffic runs on this network.

The network: each node is a SimGrid cluster of its ranks' hosts; two ranks of one node talk
over its internal link (default: host shared memory, because StarPU-MPI stages device data
through main memory); nodes talk over InfiniBand through a non-blocking fat tree: each node's
NICs (one per GPU: G x 400 Gb/s), and nothing between them, since a non-blocking fat tree is
never the bottleneck.  (A spine link of 1000 TB/s with FATPIPE sharing gave the same times but
tied every inter-node flow of the cluster to one constraint of SimGrid's max-min solver, whose
work then grew with all the flows at once: at 128 ranks most of the simulation's time.)

usage: sim_platform.py --nodes N --gpus-per-node G [--intra-GBps 25] [--intra-lat-us 1]
                       [--ib-Gbps 400] [--ib-lat-us 2] PLATFORM.xml HOSTFILE
Writes the platform and the hostfile (one host per rank, node-major: rank r is GPU r % G of
node r // G).
"""
import argparse
import sys


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--nodes', type=int, required=True)
    ap.add_argument('--gpus-per-node', type=int, required=True)
    ap.add_argument('--intra-GBps', type=float, default=25.0,
                    help='rank-to-rank bandwidth inside a node [GB/s] (default 25: host memory)')
    ap.add_argument('--intra-lat-us', type=float, default=1.0)
    ap.add_argument('--ib-Gbps', type=float, default=400.0, help='per GPU NIC [Gb/s]')
    ap.add_argument('--ib-lat-us', type=float, default=2.0,
                    help='one way, NIC to NIC through the fat tree [us]')
    ap.add_argument('platform')
    ap.add_argument('hostfile')
    a = ap.parse_args(argv)
    if a.nodes < 1 or a.gpus_per_node < 1:
        sys.exit('sim_platform.py: --nodes and --gpus-per-node must be at least 1')
    if min(a.intra_GBps, a.ib_Gbps) <= 0 or min(a.intra_lat_us, a.ib_lat_us) < 0:
        sys.exit('sim_platform.py: bandwidths must be > 0 and latencies >= 0')
    G, N = a.gpus_per_node, a.nodes
    nic_GBps = G * a.ib_Gbps / 8.0
    out = ["<?xml version='1.0'?>",
           "<!DOCTYPE platform SYSTEM 'https://simgrid.org/simgrid.dtd'>",
           '<platform version="4.1">',
           '<!-- %d nodes x %d GPUs: inside a node %.4g GB/s, %.4g us per rank link; between '
           'nodes %d x %.4g Gb/s NICs (%.4g GB/s per node), %.4g us -->'
           % (N, G, a.intra_GBps, a.intra_lat_us, G, a.ib_Gbps, nic_GBps, a.ib_lat_us),
           # Full routing over the node zones: N (N - 1) / 2 symmetric routes
           '<zone id="gpu-cluster" routing="Full">']
    # half the one-way latency on each side's NIC link, the fat tree itself no constraint
    half = a.ib_lat_us / 2
    for n in range(N):
        out.append('  <cluster id="node%d" prefix="node%d-gpu" suffix="" radical="0-%d" '
                   'speed="1Gf" bw="%.6gGBps" lat="%.6gus" router_id="node%d-router"/>'
                   % (n, n, G - 1, a.intra_GBps, a.intra_lat_us / 2, n))
        out.append('  <link id="node%d-ib" bandwidth="%.6gGBps" latency="%.6gus"/>'
                   % (n, nic_GBps, half))
    for i in range(N):
        for j in range(i + 1, N):
            out.append('  <zoneRoute src="node%d" dst="node%d" gw_src="node%d-router" '
                       'gw_dst="node%d-router"><link_ctn id="node%d-ib"/>'
                       '<link_ctn id="node%d-ib"/></zoneRoute>' % (i, j, i, j, i, j))
    out += ['</zone>', '</platform>', '']
    with open(a.platform, 'w') as f:
        f.write('\n'.join(out))
    with open(a.hostfile, 'w') as f:
        for n in range(N):
            for g in range(G):
                f.write('node%d-gpu%d\n' % (n, g))


if __name__ == '__main__':
    main()
