/**
 * VPP 26.06 CLI output for the parser tests, written from the format strings in VPP's source
 * (src/vlib/node_cli.c show_node_runtime + format_vlib_node_stats, src/vlib/threads_cli.c
 * show_threads_fn, src/vlib/cli.c show_cpu) and vppinfra's format_float/justify: fixed columns,
 * names cut at 30 characters, "1.05e2"-style clocks, process states in quotes, the "events
 * pending" continuation line. The numbers are invented but consistent (a node's vectors match the
 * path), so the expected figures can be worked out by hand in the tests.
 */

/** No workers: one block, no "Thread" line. vppnet's VM → remote path, 64 B, 10 s. */
export const RUNTIME_MAIN_ONLY = `Time 10.0, 10.000000 sec internal node vector rate 256.00 loops/sec 38400.00
  vector rates in 9.8304e6, out 9.8304e6, drop 0.0000e0, punt 0.0000e0
             Name                 State         Calls          Vectors        Suspends      Packet-Clocks   Vectors/Call  
api-rx-from-ring               "any wait"                0               0              23          3.18e4            0.00
ethernet-input                   active             384000        98304000               0          1.12e1          256.00
fib-walk                       "any wait"                0               0               5          7.62e3            0.00
ip4-input-no-checksum            active             384000        98304000               0          9.40e0          256.00
ip4-lookup                       active             384000        98304000               0          1.38e1          256.00
ip6-lookup                       active             384000        98304000               0          1.41e1          256.00
ip6-ra-process                 "any wait"                0               0              10          2.41e3            0.00
    events pending, 
ip6-rewrite                      active             384000        98304000               0          1.26e1          256.00
pg-input                         polling            384000        98304000               0          1.96e1          256.00
pg12-output                      active             384000        98304000               0          3.90e0          256.00
pg12-tx                          active             384000        98304000               0          1.62e1          256.00
sr-pl-rewrite-encaps-v4          active             384000        98304000               0          2.49e1          256.00
statseg-collector-process     "clock wait"               0               0               1          1.18e5            0.00
unix-epoll-input                 polling            384000               0               0          2.12e2            0.00
`;

/**
 * Two workers, VM → metadata: worker 0 hands every packet to worker 1 (NAT44-ED picks the in2out
 * worker by source address), which runs NAT, the bridge and the pod port. 4100 packets dropped.
 */
export const RUNTIME_TWO_WORKERS = `Thread 0 vpp_main (lcore 1)
Time 10.0, 10.000000 sec internal node vector rate 0.00 loops/sec 51234.50
  vector rates in 0.0000e0, out 0.0000e0, drop 0.0000e0, punt 0.0000e0
             Name                 State         Calls          Vectors        Suspends      Packet-Clocks   Vectors/Call  
api-rx-from-ring               "any wait"                0               0              31          2.99e4            0.00
fib-walk                       "any wait"                0               0               5          7.10e3            0.00
memif-process                 "event wait"               0               0               1          4.21e3            0.00
statseg-collector-process     "clock wait"               0               0               1          9.62e4            0.00
unix-epoll-input                 polling            512345               0               0          1.98e2            0.00
---------------
Thread 1 vpp_wk_0 (lcore 2)
Time 10.0, 10.000000 sec internal node vector rate 231.77 loops/sec 19600.00
  vector rates in 5.0174e6, out 0.0000e0, drop 0.0000e0, punt 0.0000e0
             Name                 State         Calls          Vectors        Suspends      Packet-Clocks   Vectors/Call  
ethernet-input                   active             196000        50174766               0          1.19e1          255.99
ip4-input-no-checksum            active             196000        50174766               0          1.01e1          255.99
ip4-lookup                       active             196000        50174766               0          1.46e1          255.99
ip4-rewrite                      active             196000        50174766               0          1.35e1          255.99
ip4-sv-reassembly-output-featu   active             196000        50174766               0          9.80e0          255.99
lookup-ip4-dst                   active             196000        50174766               0          1.22e1          255.99
nat44-in2out-output-worker-han   active             196000        50174766               0          1.87e1          255.99
pg-input                         polling            196000        50174766               0          2.13e1          255.99
---------------
Thread 2 vpp_wk_1 (lcore 3)
Time 10.0, 10.000000 sec internal node vector rate 248.91 loops/sec 19000.00
  vector rates in 4.8639e6, out 9.8809e6, drop 4.1000e2, punt 0.0000e0
             Name                 State         Calls          Vectors        Suspends      Packet-Clocks   Vectors/Call  
acl-plugin-out-ip4-l2            active             386000        98809679               0          2.79e1          255.98
drop                             active                 12            4100               0          2.30e1          341.67
error-drop                       active                 12            4100               0          6.10e1          341.67
ethernet-input                   active             190000        48639013               0          1.18e1          255.99
ip4-input-no-checksum            active             190000        48639013               0          1.00e1          255.99
ip4-lookup                       active             190000        48639013               0          1.44e1          255.99
ip4-rewrite                      active             190000        48639013               0          1.33e1          255.99
ip4-sv-reassembly-output-featu   active             190000        48639013               0          9.70e0          255.99
l2-fwd                           active             386000        98809679               0          1.04e1          255.98
l2-input                         active             386000        98809679               0          8.80e0          255.98
l2-output                        active             386000        98809679               0          7.20e0          255.98
lookup-ip4-dst                   active             190000        48639013               0          1.21e1          255.99
loop1-output                     active             386000        98809679               0          6.10e0          255.98
nat44-ed-in2out-output           active             386000        98813779               0          3.14e1          255.99
nat44-ed-in2out-output-slowpat   active                 12            4101               0          4.02e2          341.75
nat44-in2out-output-worker-han   active             190000        48639013               0          1.69e1          255.99
pg-input                         polling            190000        48639013               0          2.11e1          255.99
pg13-output                      active             386000        98809679               0          4.00e0          255.98
pg13-tx                          active             386000        98809679               0          2.25e1          255.98
`;

/** `show threads` with two workers: "%-7d%-20s%-12s%-8d", the policy, lcore/core/socket. */
export const THREADS_TWO_WORKERS = `ID     Name                Type        LWP     Sched Policy (Priority)  lcore  Core   Socket State     
0      vpp_main                        41201   other (0)                1      1      0                
1      vpp_wk_0            workers     41209   other (0)                2      2      0                
2      vpp_wk_1            workers     41210   other (0)                3      3      0                
`;

/** `show threads` without workers and without a main-core setting (lcore etc. "n/a"). */
export const THREADS_MAIN_ONLY = `ID     Name                Type        LWP     Sched Policy (Priority)  lcore  Core   Socket State     
0      vpp_main                        7310    other (0)                n/a    n/a    n/a    
`;

/** `show cpu`: "%-25s " label and value (flags shortened). */
export const SHOW_CPU = `Model name:               Intel(R) Xeon(R) Gold 6338N CPU @ 2.20GHz
Microarch model (family): [0x6] Icelake ([0x6a] Ice Lake) stepping 0x6
Flags:                    sse3 pclmulqdq ssse3 sse41 sse42 avx rdrand avx2 bmi2 rtm pqm pqe rdseed aes invariant_tsc 
Base frequency:           2.1999 GHz
`;
