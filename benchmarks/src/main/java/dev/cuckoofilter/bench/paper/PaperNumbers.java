package dev.cuckoofilter.bench.paper;

import java.util.Map;

/**
 * Numbers the paper reports, where it reports them. "Paper" is Fan et al., CoNEXT 2014; ";login:" is
 * the shorter article (;login: 38(4), August 2013) that has the load-factor table.
 */
final class PaperNumbers {
  private PaperNumbers() {}

  /** A column of Table 3 (section 7.1, 192 MB filters). */
  record Table3Column(double itemsMillion, double bitsPerItem, double falsePositiveRate, double constructionMops) {}

  static final Map<Contender, Table3Column> TABLE3 = Map.of(
      Contender.CF, new Table3Column(127.78, 12.60, 0.0019, 5.00),
      Contender.SS_CF, new Table3Column(128.04, 12.58, 0.0009, 3.13),
      Contender.BF, new Table3Column(123.89, 13.00, 0.0019, 3.91),
      Contender.BLOCKED_BF, new Table3Column(123.89, 13.00, 0.0043, 7.64));

  /** Table 3's cuckoo tables: 2^25 buckets of 4 entries. */
  static final long TABLE3_ENTRIES = 4L << 25;

  /** ;login: Table 2: (2,4)-filters of 2^25 buckets, mean load (%) and its "variance" over 10 runs. */
  static final int[] LOGIN_TABLE2_BITS = {2, 4, 6, 8, 12, 16};
  static final double[] LOGIN_TABLE2_MEAN_PERCENT = {17.53, 67.67, 95.39, 95.62, 95.77, 95.80};
  static final double[] LOGIN_TABLE2_VARIANCE = {1.39, 8.06, 0.10, 0.18, 0.11, 0.11};
  static final int LOGIN_TABLE2_BUCKETS_LOG2 = 25;

  /** ;login: "Space efficiency": bits per item and false-positive rate of the ~200 MB filters. */
  static final double LOGIN_CF_BITS_PER_ITEM = 12.53;
  static final double LOGIN_SS_CF_BITS_PER_ITEM = 12.57;
  static final double LOGIN_CF_FPR = 0.0019;
  static final double LOGIN_SS_CF_FPR = 0.0009;
  static final double LOGIN_BF_FPR = 0.0020;

  /** Section 5.1: load factors reached with bucket sizes 2, 4, 8 (Fig. 2 for 4 and 8). */
  static final Map<Integer, Double> LOAD_BY_BUCKET_SIZE = Map.of(2, 0.84, 4, 0.95, 8, 0.98);

  /** Section 5.1, Fig. 3: b = 2 needs fewer bits per item than b = 4 above this false-positive rate. */
  static final double B2_B4_CROSSOVER_FPR = 0.002;

  /** Section 4: fingerprint bits beyond which the load approaches the optimum (b = 4, up to 2^30 buckets). */
  static final int SUFFICIENT_FINGERPRINT_BITS = 6;

  /** Section 6, Table 2: the load factor used for the cuckoo filters' space cost. */
  static final double SPACE_TABLE_LOAD = 0.955;

  /** Fig. 4: ss-CF needs fewer bits than a space-optimal Bloom filter below this rate, at this cost. */
  static final double SS_CF_BLOOM_CROSSOVER_FPR = 0.03;
  static final double SS_CF_BLOOM_CROSSOVER_BITS = 7.2;

  /** Section 7, "Experiment Setup": time to compute a 64-bit CityHash per item, ns. */
  static final double HASH_NANOS = 20;

  /** Section 7.2, Fig. 5: the standard Bloom filter is about this many MOPS slower than the blocked one. */
  static final double BLOCKED_MINUS_STANDARD_BLOOM_MOPS = 4;

  /** Section 7.2, Fig. 5: ss-CF outperforms BF when more than this fraction of lookups are positive. */
  static final double SS_CF_BEATS_BF_ABOVE_POSITIVE_FRACTION = 0.25;
}
