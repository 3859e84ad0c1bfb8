package dev.cuckoofilter.bench.paper;

import java.util.List;

/**
 * The sizes of one reproduction run. The paper's own sizes (192 MB filters, 2^25-2^30 buckets, 10 runs
 * per point) do not fit a 2-core machine in 20 minutes; {@link #FULL} scales them down but keeps the
 * filters of Table 3 and Fig. 5-8 larger than the last-level cache, as in the paper.
 *
 * @param sameMemoryBucketsLog2 cuckoo buckets of the Table 3 / Fig. 5-8 filters (b = 4, 48-bit buckets);
 *     every filter there gets the same {@code 48 * 2^this} bits
 * @param fprQueries absent keys queried to measure a false-positive rate (Table 3)
 * @param lookupQueries keys per timed lookup measurement (Fig. 5, 6)
 * @param timedRepetitions timed repetitions of each Table 3 construction and Fig. 5 point (median reported)
 * @param occupancyRuns runs per Fig. 6-8 point (median reported)
 * @param occupancySteps occupancy steps from empty to full (Fig. 6-8)
 * @param loadBucketsLog2 table sizes of Fig. 2; the largest is also Table 2's
 * @param loadTrials fills per Fig. 2 / Table 2 point (the paper: 10)
 * @param paperSizeBucketsLog2 Table 2 at the paper's own size (2^25 buckets), one fill per width; 0 = skip
 * @param paperSizeWidths the fingerprint widths filled at the paper's size (where size matters; 2 and 3 with
 *     {@link MinimalCuckooTable})
 * @param spaceSlotsLog2 entries of each Fig. 3 table (buckets = entries / b)
 * @param spaceTrials fills averaged per Fig. 3 point
 * @param spaceQueries absent keys queried per Fig. 3 fill
 * @param warmUpBucketsLog2 buckets of the untimed warm-up filters that let the JIT compile first
 * @param probeBytesLog2 array size of the memory-latency probe ({@link MachineProbe})
 */
public record Scale(
    String name,
    int sameMemoryBucketsLog2,
    int fprQueries,
    int lookupQueries,
    int timedRepetitions,
    int occupancyRuns,
    int occupancySteps,
    List<Integer> loadBucketsLog2,
    int loadTrials,
    int paperSizeBucketsLog2,
    List<Integer> paperSizeWidths,
    int spaceSlotsLog2,
    int spaceTrials,
    int spaceQueries,
    int warmUpBucketsLog2,
    int probeBytesLog2) {

  /** 12-23 minutes on the 2-core machines of docs/PAPER.md; 48 MiB filters (the LLC is 32 MiB). */
  public static final Scale FULL = new Scale("full", 23, 10_000_000, 2_000_000, 3, 3, 20,
      List.of(15, 17, 20), 10, 25, List.of(2, 3, 4, 6), 20, 5, 4_000_000, 16, 28);

  /** Seconds: tiny tables, for tests and trying the harness. Numbers are not meaningful. */
  public static final Scale QUICK = new Scale("quick", 13, 1_000_000, 100_000, 1, 1, 10,
      List.of(10, 12), 3, 0, List.of(), 14, 2, 300_000, 10, 22);

  public long sameMemoryBits() {
    return 48L << sameMemoryBucketsLog2;
  }

  public int table2BucketsLog2() {
    return loadBucketsLog2.get(loadBucketsLog2.size() - 1);
  }
}
