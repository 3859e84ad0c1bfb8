package dev.cuckoofilter.examples.jobs;

import dev.cuckoofilter.examples.common.ExitCodes;
import dev.cuckoofilter.examples.common.InputException;
import dev.cuckoofilter.examples.common.Locations;
import dev.cuckoofilter.examples.common.Publishing;
import dev.cuckoofilter.examples.common.SizingOptions;
import dev.cuckoofilter.spark.CuckooFilters;
import dev.cuckoofilter.spark.SparkCuckooFilter;
import dev.cuckoofilter.spark.aggregate.CuckooFilterAggregate;
import dev.cuckoofilter.spark.store.FilterMetadata;
import dev.cuckoofilter.spark.store.FilterStore;
import dev.cuckoofilter.spark.store.FilterVersion;
import java.io.PrintWriter;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructField;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Builds a filter of a dataset's keys in Spark (the distributed, deterministic build of
 * {@link CuckooFilters#builder}) and publishes it as the next version of a filter location.
 *
 * <pre>
 * spark-submit --class dev.cuckoofilter.examples.jobs.BuildFilterJob cuckoo-filter-examples_2.12.jar \
 *   --input s3a://lake/customers --keys customer_id --location s3a://lake/filters/customers --fpp 0.001
 * </pre>
 */
@Command(name = "build-filter", sortOptions = false, usageHelpAutoWidth = true,
    description = "Builds a cuckoo filter of the keys of a dataset (Parquet, ORC, CSV, JSON or a table) and publishes "
        + "it as the next version of a filter location.")
public final class BuildFilterJob extends SparkJob {
  @Option(names = "--input", required = true, paramLabel = "PATH|TABLE",
      description = "The dataset: a file, a directory or a glob; a table name with --format table.")
  String input;

  @Mixin
  DatasetOptions dataset;

  @Option(names = "--keys", required = true, split = ",", paramLabel = "COLUMN",
      description = "The key column(s), comma-separated; several columns make a composite key.")
  List<String> keys;

  @Option(names = "--location", required = true, paramLabel = "URI",
      description = "The filter location (a directory on any Hadoop file system); created on the first publish.")
  String location;

  @Mixin
  SizingOptions sizing;

  @Option(names = "--source", paramLabel = "TEXT",
      description = "Where the keys come from, recorded in the metadata (default: the format and --input).")
  String source;

  @Option(names = "--new-keys",
      description = "Re-key the location: publish although --keys (names or types) differ from the latest version's "
          + "key columns, which is refused otherwise.")
  boolean newKeys;

  /** Runs the job; see {@link SparkJob#runAndExit}. */
  public static void main(String[] args) {
    runAndExit(new BuildFilterJob(), args);
  }

  @Override
  void checkOptions() {
    sizing.requireFeasible();
  }

  @Override
  int run(SparkSession spark, PrintWriter out) throws Exception {
    FilterStore store = Locations.openForPublishing(location, spark.sessionState().newHadoopConf(), "--location");
    // The version this build replaces, read before the input: a version published while the build reads and computes
    // (an update) makes the publish a conflict instead of being replaced by a filter of the older data.
    long parent = store.latest().map(FilterVersion::version).orElse(FilterMetadata.NO_PARENT);
    Dataset<Row> data = dataset.read(spark, input, "--input");
    List<StructField> keyFields = KeyColumns.columns(data, keys, "--input " + input);
    if (!newKeys) {
      store.requireKeyColumnsOfLatest(KeyColumns.json(keyFields)); // before the build; publish checks again
    }
    // Built on the columns' own names, which the filter's key fields, and so the location, record.
    CuckooFilters.Builder builder = CuckooFilters.builder(data)
        .keys(KeyColumns.quotedNames(keyFields).toArray(new String[0]))
        .fpp(sizing.fpp()).headroom(sizing.headroom());
    sizing.expectedItems().ifPresent(builder::expectedItems);
    SparkCuckooFilter filter;
    try {
      filter = builder.build();
    } catch (Exception e) { // a SparkException, which is checked, when the job failed
      Throwable overfilled = sizing.expectedItems().isPresent() ? overfilled(e) : null;
      if (overfilled != null) {
        throw new InputException("--expected-items " + sizing.expectedItems().getAsLong() + " is too small: --input "
            + input + " has more distinct keys than a filter sized for that many holds; raise it, or leave it out to "
            + "size the filter for the input", e);
      }
      throw e;
    }
    out.println("built a filter of " + KeyColumns.describe(filter.keyFields()) + ": "
        + Publishing.statistics(filter.filter()));
    FilterVersion version = Publishing.publishOn(store, parent, filter.filter(), KeyColumns.json(filter.keyFields()),
        source != null ? source : dataset.format + " " + input, spec.name(), newKeys);
    out.println("published " + version);
    return ExitCodes.OK;
  }

  /**
   * The failure of the build aggregate, among the causes of a failed Spark job, when more distinct keys
   * arrived than the filter was sized for (a task's exception travels to the driver as the job's cause);
   * null if that was not the problem.
   */
  private static Throwable overfilled(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      StackTraceElement[] trace = t.getStackTrace();
      if (t instanceof IllegalStateException && trace.length > 0
          && trace[0].getClassName().equals(CuckooFilterAggregate.class.getName())) {
        return t;
      }
    }
    return null;
  }
}
