package dev.cuckoofilter.examples.demo;

import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.sum;

import dev.cuckoofilter.core.CuckooFilter;
import dev.cuckoofilter.spark.CuckooFilters;
import dev.cuckoofilter.spark.SparkCuckooFilter;
import dev.cuckoofilter.spark.store.FilterStore;
import dev.cuckoofilter.spark.store.FilterVersion;
import dev.cuckoofilter.spark.update.ChangeSet;
import dev.cuckoofilter.spark.update.FilterUpdater;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * The quick-start demo: semi-join pruning with a stored, incrementally updated cuckoo filter, on an
 * embedded local Spark.
 *
 * <ol>
 *   <li>generates an online shop's orders and customers as Parquet ({@link ShopData}; first run only);
 *   <li>builds a filter of the keys of a filtered dimension, the active customers of one country, with the
 *       DataFrame API, and publishes it as version 1 of a filter store on the local file system;
 *   <li>loads it back from the store and prunes the orders with it before joining them with that
 *       dimension; checks that the result equals the unpruned join's and measures the false-positive
 *       rate, the rows the join no longer shuffles, and both joins' times;
 *   <li>applies a day of customer changes (some deactivated, some activated) as an incremental update,
 *       published as version 2, checks it is byte-identical to a rebuild, and checks the pruned join
 *       again;
 *   <li>prints a summary table.
 * </ol>
 *
 * Run it with the README's first command, or
 * {@code java <Spark's --add-opens> -cp <classpath> dev.cuckoofilter.examples.demo.QuickStartDemo --help}.
 * Broadcast joins are switched off: the demo stands in for a dimension too large to broadcast, the case
 * where the big side must be shuffled and pruning it pays.
 */
public final class QuickStartDemo {
  /** The dimension: active customers of this country (8% of customers, 62% of them active). */
  static final String COUNTRY = "DE";
  /** False-positive rate the filter is built for. */
  static final double FPP = 0.001;
  /** Room for 20% more keys than the dimension has, so that updates which add keys fit without a rebuild. */
  static final double HEADROOM = 1.2;

  private QuickStartDemo() {}

  /**
   * Command-line options.
   *
   * @param data      directory of the generated tables and the filter store
   * @param orders    order rows to generate
   * @param customers customer rows to generate
   */
  public record Options(Path data, long orders, long customers) {
    static final String USAGE = String.join("\n",
        "QuickStartDemo: semi-join pruning with a stored, incrementally updated cuckoo filter on a local Spark",
        "  --data DIR        tables and filter store (default target/quickstart); tables are reused when the",
        "                    sizes match",
        "  --orders N        order rows (default " + ShopData.DEFAULT_ORDERS + ")",
        "  --customers N     customer rows (default " + ShopData.DEFAULT_CUSTOMERS + ")",
        "  --small           200,000 orders and 20,000 customers: a run of seconds",
        "  --help            this text");

    /** Parses the arguments; null for {@code --help}. */
    public static Options parse(String... args) {
      Path data = Path.of("target", "quickstart");
      long orders = ShopData.DEFAULT_ORDERS;
      long customers = ShopData.DEFAULT_CUSTOMERS;
      for (int i = 0; i < args.length; i++) {
        switch (args[i]) {
          case "--help" -> {
            return null;
          }
          case "--small" -> {
            orders = 200_000;
            customers = 20_000;
          }
          case "--data" -> data = Path.of(value(args, ++i));
          case "--orders" -> orders = Long.parseLong(value(args, ++i));
          case "--customers" -> customers = Long.parseLong(value(args, ++i));
          default -> throw new IllegalArgumentException("unknown option " + args[i] + "\n" + USAGE);
        }
      }
      return new Options(data, orders, customers);
    }

    private static String value(String[] args, int i) {
      if (i >= args.length) {
        throw new IllegalArgumentException(args[i - 1] + " needs a value\n" + USAGE);
      }
      return args[i];
    }
  }

  public static void main(String[] args) throws Exception {
    quietLoggingUnlessConfigured();
    Options options = Options.parse(args);
    if (options == null) {
      System.out.println(Options.USAGE);
      return;
    }
    SparkSession spark = session().config("spark.ui.showConsoleProgress", "true").getOrCreate();
    boolean passed;
    try {
      passed = run(spark, options, System.out).passed();
    } finally {
      spark.stop();
    }
    if (!passed) {
      System.exit(1);
    }
  }

  /**
   * The demo's Spark session: local, 2 cores, loopback only. Broadcast joins are off (see the class
   * comment); 16 shuffle partitions suit 2 cores (adaptive execution coalesces them further).
   */
  public static SparkSession.Builder session() {
    return SparkSession.builder()
        .master("local[2]")
        .appName("spark-cuckoo quick start")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "16")
        .config("spark.sql.autoBroadcastJoinThreshold", "-1")
        .config("spark.sql.session.timeZone", "UTC");
  }

  /** Runs every step, printing progress and the summary to {@code out}. */
  public static DemoReport run(SparkSession spark, Options options, PrintStream out) throws Exception {
    Steps steps = new Steps(out, 6);
    String dimensionName = "active customers in " + COUNTRY;
    DemoReport report = new DemoReport(dimensionName);
    ShopData shop = new ShopData(spark, options.data(), options.orders(), options.customers());

    Steps.Timed<Boolean> generated = steps.run(String.format(Locale.ROOT,
        "Data: %,d orders and %,d customers as Parquet in %s", options.orders(), options.customers(),
        options.data()), shop::ensureGenerated);
    out.println("      " + (generated.value() ? "generated (later runs of this size reuse them)"
        : "reused from an earlier run"));
    out.println("      broadcast joins are off (spark.sql.autoBroadcastJoinThreshold=-1): the joins below are"
        + " sort-merge joins that shuffle the orders, as with a dimension too large to broadcast");
    Dataset<Row> orders = shop.orders();
    Dataset<Row> customers = shop.customers();
    Dataset<Row> dimension = ShopData.activeCustomersOf(customers, COUNTRY);

    // Version 1: build with the DataFrame API and publish in a fresh store on the local file system.
    Path storeDir = options.data().resolve("filters").resolve("active-customers-" + COUNTRY);
    deleteRecursively(storeDir);
    FilterStore store = FilterStore.open(storeDir.toUri().toString(), spark);
    Steps.Timed<FilterVersion> built = steps.run("Build a filter of the " + dimensionName + " (fpp " + FPP
        + ", " + Math.round((HEADROOM - 1) * 100) + "% headroom) and publish it as version 1 of " + storeDir,
        () -> CuckooFilters.builder(dimension).keys("customer_id").fpp(FPP).headroom(HEADROOM).build()
            .saveTo(store, "customers where active and country = '" + COUNTRY + "'"));
    out.println("      " + built.value());

    Steps.Timed<DemoReport.Phase> first = steps.run("Join the orders with the " + dimensionName
        + ", without and with pruning by the stored filter (each twice: the first run warms up)",
        () -> compareJoins(spark, store, orders, dimension, built.seconds(), report, out));
    report.add(first.value());

    // Version 2: one day of changes, applied as an incremental update of the stored filter.
    Dataset<Row> dimensionAfter = ShopData.activeCustomersOf(ShopData.afterOneDay(customers), COUNTRY);
    Dataset<Row> added = dimensionAfter.join(dimension, new String[] {"customer_id"}, "left_anti");
    Dataset<Row> removed = dimension.join(dimensionAfter, new String[] {"customer_id"}, "left_anti");
    Steps.Timed<FilterUpdater.Published> update = steps.run("Update the stored filter for a day of changes: "
        + "customers deactivated and activated; publish it as version 2",
        () -> FilterUpdater.update(store, ChangeSet.of(added, removed, dimensionAfter),
            "one day of customer changes"));
    out.println("      " + update.value().result().summary());
    out.println("      " + update.value().version());

    steps.run("Check that the updated filter is byte-identical to a filter rebuilt from the changed customers",
        () -> {
          checkSameAsRebuild(update.value(), dimensionAfter, report);
          return null;
        });

    Steps.Timed<DemoReport.Phase> second = steps.run("Join the orders with the changed " + dimensionName
        + ", without and with pruning by version 2",
        () -> compareJoins(spark, store, orders, dimensionAfter, update.seconds(), report, out));
    report.add(second.value());
    report.check("version numbers", first.value().version() == 1 && second.value().version() == 2,
        "the build published version " + first.value().version() + ", the update version "
            + second.value().version());

    out.println();
    out.print(report.render());
    out.println();
    out.println(report.passed() ? "All checks passed." : "SOME CHECKS FAILED.");
    return report;
  }

  /**
   * Revenue by customer segment of the orders of {@code dimension}'s customers: the demo's report query.
   * The join is where the orders are shuffled; pruning them first shuffles only the orders that may match.
   */
  static Dataset<Row> revenueBySegment(Dataset<Row> orders, Dataset<Row> dimension) {
    return orders.join(dimension, "customer_id")
        .groupBy("segment")
        .agg(count("*").as("orders"), sum("amount").as("revenue"))
        .orderBy("segment");
  }

  /**
   * Runs the report query with and without pruning by the latest stored version, checks both give the
   * same rows, and measures the second run of each (the first warms up the JVM and Spark's caches).
   */
  private static DemoReport.Phase compareJoins(SparkSession spark, FilterStore store, Dataset<Row> orders,
      Dataset<Row> dimension, double filterSeconds, DemoReport report, PrintStream out) throws Exception {
    // Executors (here: the local ones) get the stored filter; small filters are broadcast by the driver.
    SparkCuckooFilter stored = store.sparkFilterLatest(spark);
    long version = store.latest().orElseThrow().version();
    CuckooFilter filter = stored.filter();

    List<Row> unpruned = revenueBySegment(orders, dimension).collectAsList();
    List<Row> pruned = revenueBySegment(stored.prune(orders, "customer_id"), dimension).collectAsList();
    // Pruning only removes order rows, so the pruned join's rows are a subset of the unpruned join's:
    // equal counts and sums per segment mean equal results, and no order with a match was dropped.
    report.check("version " + version + ": pruned join = unpruned join", unpruned.equals(pruned),
        "orders and revenue per segment " + (unpruned.equals(pruned) ? "equal: " + unpruned
            : "differ: unpruned " + unpruned + ", pruned " + pruned));
    if (version == 1) {
      out.println("      orders and revenue of the " + "active customers in " + COUNTRY + " by segment: " + unpruned);
    }

    double unprunedSeconds = Steps.time(() -> revenueBySegment(orders, dimension).collectAsList()).seconds();
    double prunedSeconds = Steps.time(() -> revenueBySegment(stored.prune(orders, "customer_id"), dimension)
        .collectAsList()).seconds();

    // The orders the filter keeps, counted on their own: stored.rowsIn()/rowsOut() would also count the
    // dimension's rows, because Spark's optimizer copies the filter predicate to the other side of the
    // join (both sides have the same customer_id there).
    long scanned = orders.count();
    long kept = stored.prune(orders, "customer_id").count();
    long matching = unpruned.stream().mapToLong(r -> r.getLong(1)).sum();
    // The filter's rate is per distinct key: probe each absent key of the orders once.
    Dataset<Row> absentKeys = orders.select("customer_id").distinct()
        .join(dimension.select("customer_id"), new String[] {"customer_id"}, "left_anti");
    long absent = absentKeys.count();
    long falsePositiveKeys = stored.prune(absentKeys, "customer_id").count();
    DemoReport.Phase phase = new DemoReport.Phase(version, dimension.select("customer_id").distinct().count(),
        filter.serializedSize(), filter.bitsPerItem(), scanned, kept, matching, absent, falsePositiveKeys,
        filter.expectedFpp(), unprunedSeconds, prunedSeconds, filterSeconds);
    report.check("version " + version + ": measured FPR within expectation", phase.fppWithinExpectation(),
        String.format(Locale.ROOT, "%,d of %,d absent keys let through (%.4f%%), expected %.4f%%",
            falsePositiveKeys, absent, 100 * phase.measuredFpp(), 100 * filter.expectedFpp()));
    return phase;
  }

  /**
   * An updated filter is laid out canonically, so it has the bytes of a fresh build with the same
   * parameters; unless the update had to rebuild (the keys outgrew the filter), which the demo's
   * headroom avoids.
   */
  private static void checkSameAsRebuild(FilterUpdater.Published update, Dataset<Row> dimensionAfter,
      DemoReport report) {
    CuckooFilter updated = update.result().filter();
    if (update.result().rebuilt()) {
      report.check("update without rebuild", false, update.result().rebuildReason());
      return;
    }
    CuckooFilter rebuilt = CuckooFilters.builder(dimensionAfter).keys("customer_id")
        .expectedItems(updated.expectedItems()).fpp(updated.parameters().targetFpp()).build().filter();
    boolean same = Arrays.equals(updated.toByteArray(), rebuilt.toByteArray());
    report.check("updated filter = rebuilt filter", same, same
        ? "byte-identical (" + updated.serializedSize() + " bytes, " + updated.size() + " entries)"
        : "updated " + updated + ", rebuilt " + rebuilt);
  }

  /**
   * Spark at WARN, unless the caller configured logging: its INFO lines would bury the demo's output, and
   * the console progress bar shows the stages instead. Must run before anything starts log4j.
   */
  static void quietLoggingUnlessConfigured() {
    if (System.getProperty("log4j2.configurationFile") == null) {
      URL config = QuickStartDemo.class.getResource("console-log4j2.properties");
      System.setProperty("log4j2.configurationFile", config.toString());
    }
  }

  private static void deleteRecursively(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
