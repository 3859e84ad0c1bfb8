package dev.cuckoofilter.spark.optimizer;

import dev.cuckoofilter.spark.aggregate.CuckooFilterAggregate;
import org.apache.spark.network.util.JavaUtils;
import org.apache.spark.sql.internal.SQLConf;

/**
 * The {@code spark.cuckoo.*} settings of the automatic runtime filter ({@link CuckooRuntimeFilterRule}),
 * read from the session's SQL configuration at planning time, so they can be set per query with
 * {@code spark.conf.set} or {@code SET}.
 */
public final class RuntimeFilterConf {
  /** Master switch (default true). */
  public static final String ENABLED = "spark.cuckoo.runtimeFilter.enabled";
  /** Inject wherever it is safe, ignoring the size thresholds and the selective-predicate test (default false). */
  public static final String FORCE = "spark.cuckoo.runtimeFilter.force";
  /**
   * Smallest estimated size of the side to prune (default 8MB): smaller sides are not worth a filter. With
   * Spark's default broadcast threshold (10MB) a shuffled side is larger anyway. TPC-H-like Q3, Q5 and Q10
   * at scale 1 prune their lineitem side only below the former default of 64MB, and gain 1.2-1.6x
   * (docs/BENCHMARKS.md).
   */
  public static final String APPLICATION_SIDE_THRESHOLD = "spark.cuckoo.runtimeFilter.applicationSideThreshold";
  /** Largest estimated size of the side the filter is built from (default 10GB). */
  public static final String CREATION_SIDE_THRESHOLD = "spark.cuckoo.runtimeFilter.creationSideThreshold";
  /** Only build from a side that has a selective predicate or join below it (default true). */
  public static final String REQUIRE_SELECTIVE = "spark.cuckoo.runtimeFilter.requireSelectivePredicate";
  /** False-positive rate of the filters built (default 0.001); each filter is sized from the exact key count. */
  public static final String FPP = "spark.cuckoo.runtimeFilter.fpp";
  /**
   * Build a filter from the join's own shuffle of the other side rather than a second scan of it (default
   * true; adaptive execution only): {@link ShareCreationSideShuffle}.
   */
  public static final String SHARE_SHUFFLE = "spark.cuckoo.runtimeFilter.shareShuffle";
  /**
   * With a shared shuffle, build the filter from the shuffle's map tasks while they run ({@code
   * MapSideFilterBuildExec}) when their partial builds take at most this many bytes in all (default 32MB,
   * about 4M keys at 7-8 bytes each; 0 turns it off). They are sent to the driver, so this bounds its
   * memory; past it the filter is built on an executor from the shuffle's output, as without.
   */
  public static final String MAP_SIDE_BUILD_MAX_BYTES = "spark.cuckoo.runtimeFilter.mapSideBuild.maxBytes";
  /** Most filters injected into one query (default 10). */
  public static final String MAX_FILTERS = "spark.cuckoo.runtimeFilter.maxFilters";

  final boolean enabled;
  final boolean force;
  final long applicationSideThreshold;
  final long creationSideThreshold;
  final boolean requireSelective;
  final double fpp;
  final int maxFilters;

  private RuntimeFilterConf(SQLConf conf) {
    enabled = bool(conf, ENABLED, "true");
    force = bool(conf, FORCE, "false");
    applicationSideThreshold = bytes(conf, APPLICATION_SIDE_THRESHOLD, "8MB");
    creationSideThreshold = bytes(conf, CREATION_SIDE_THRESHOLD, "10GB");
    requireSelective = bool(conf, REQUIRE_SELECTIVE, "true");
    String fppValue = conf.getConfString(FPP, "0.001");
    try {
      fpp = Double.parseDouble(fppValue.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(FPP + " must be a number in (0, 1) such as 0.001, got '" + fppValue + "'", e);
    }
    String maxFiltersValue = conf.getConfString(MAX_FILTERS, "10");
    try {
      maxFilters = Integer.parseInt(maxFiltersValue.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(MAX_FILTERS + " must be a whole number such as 10, got '" + maxFiltersValue
          + "'", e);
    }
    if (!(fpp > 0 && fpp < 1)) {
      throw new IllegalArgumentException(FPP + " must be in (0, 1), got " + fpp);
    }
    try { // the filters are sized from the data: a rate out of reach would fail the query in its build
      CuckooFilterAggregate.checkFppSizedFromData(fpp);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(FPP + " = " + fpp + " cannot be delivered: " + e.getMessage(), e);
    }
  }

  static RuntimeFilterConf current() {
    return new RuntimeFilterConf(SQLConf.get());
  }

  /** {@link #MAP_SIDE_BUILD_MAX_BYTES}, read alone (a physical rule that runs for every query needs nothing else). */
  static long mapSideBuildMaxBytes(SQLConf conf) {
    return bytes(conf, MAP_SIDE_BUILD_MAX_BYTES, "32MB");
  }

  /** {@link #SHARE_SHUFFLE}, read alone (in the same physical rule). */
  static boolean shareShuffle(SQLConf conf) {
    return bool(conf, SHARE_SHUFFLE, "true");
  }

  /** A switch: {@code true} or {@code false} in any letters, as Spark reads its own; anything else is refused. */
  private static boolean bool(SQLConf conf, String key, String fallback) {
    String value = conf.getConfString(key, fallback);
    String v = value.trim();
    if (v.equalsIgnoreCase("true")) {
      return true;
    }
    if (v.equalsIgnoreCase("false")) {
      return false;
    }
    throw new IllegalArgumentException(key + " must be true or false, got '" + value + "'");
  }

  private static long bytes(SQLConf conf, String key, String fallback) {
    String value = conf.getConfString(key, fallback);
    try {
      return JavaUtils.byteStringAsBytes(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(key + " must be a size such as 64MB, got '" + value + "'", e);
    }
  }
}
