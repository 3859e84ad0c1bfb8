/**
 * End-to-end Spark benchmarks on local[2]: semi-join pruning against Spark's own filters ({@link
 * dev.cuckoofilter.sparkbench.JoinPruningBenchmark}), the distributed build at scale, the probe's cost per
 * row and TPC-H-like queries with and without the runtime filter rule. Commands and results:
 * docs/BENCHMARKS.md.
 */
package dev.cuckoofilter.sparkbench;
