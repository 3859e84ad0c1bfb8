package dev.cuckoofilter.examples.jobs;

import dev.cuckoofilter.examples.common.ExitCodes;
import dev.cuckoofilter.examples.common.InputException;
import dev.cuckoofilter.examples.common.Locations;
import dev.cuckoofilter.examples.common.Publishing;
import dev.cuckoofilter.spark.hash.StructKeys;
import dev.cuckoofilter.spark.store.FilterConflictException;
import dev.cuckoofilter.spark.store.FilterStore;
import dev.cuckoofilter.spark.store.FilterVersion;
import dev.cuckoofilter.spark.store.FilterVersionNotFoundException;
import dev.cuckoofilter.spark.store.StoredFilter;
import dev.cuckoofilter.spark.update.ChangeSet;
import dev.cuckoofilter.spark.update.FilterUpdater;
import dev.cuckoofilter.spark.update.UpdateResult;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * Updates a stored filter for a change of its dataset, in Spark ({@link FilterUpdater}), and publishes
 * the result as the next version. When the new keys would overfill the filter it is rebuilt from the new
 * dataset at the same false-positive rate with room to grow, and the job says so. If another writer
 * publishes first, nothing is published and the job exits with
 * {@link dev.cuckoofilter.examples.common.ExitCodes#CONFLICT}; rerunning it applies the change again to
 * the new latest version.
 *
 * <p>The job reads a version, applies the change and publishes on that version with
 * {@link FilterUpdater#publish} (rather than {@code FilterUpdater.update(FilterStore, ...)}, which always
 * starts from the latest version), so that {@code --base-version} can name the version a change was
 * computed against. The new version records the false-positive rate of the base version's metadata.
 */
@Command(name = "update-filter", sortOptions = false, usageHelpAutoWidth = true,
    description = "Updates a stored cuckoo filter for a change of its dataset and publishes the result as the next "
        + "version; rebuilds it (and says so) when the new keys would overfill it.")
public final class UpdateFilterJob extends SparkJob {
  @Option(names = "--location", required = true, paramLabel = "URI", description = "The filter location.")
  String location;

  @ArgGroup(exclusive = true, multiplicity = "1")
  Change change;

  /** The change, in one of the two forms of {@link ChangeSet}. */
  static final class Change {
    @ArgGroup(exclusive = false, heading = "The change as rows added and deleted:%n")
    Delta delta;

    @ArgGroup(exclusive = false, heading = "The change as two snapshots:%n")
    Snapshots snapshots;
  }

  /** Rows added and rows deleted, and the dataset after the change. */
  static final class Delta {
    @Option(names = "--current", required = true, paramLabel = "PATH|TABLE",
        description = "The dataset after the change: a deleted key leaves the filter only if no row has it any more.")
    String current;

    @Option(names = "--added", paramLabel = "PATH|TABLE", description = "The rows added.")
    String added;

    @Option(names = "--deleted", paramLabel = "PATH|TABLE", description = "The rows deleted.")
    String deleted;
  }

  /** The dataset before and after the change. */
  static final class Snapshots {
    @Option(names = "--before", required = true, paramLabel = "PATH|TABLE", description = "The dataset before.")
    String before;

    @Option(names = "--after", required = true, paramLabel = "PATH|TABLE", description = "The dataset after.")
    String after;
  }

  @Mixin
  DatasetOptions dataset;

  private long baseVersion;

  @Option(names = "--source", paramLabel = "TEXT",
      description = "A description of the change, recorded in the metadata (default: the datasets).")
  String source;

  @Option(names = "--base-version", paramLabel = "N",
      description = "Apply the change to version N, which must still be the latest when the result is published "
          + "(default: the latest version).")
  void setBaseVersion(long value) {
    if (value < 1) {
      throw new ParameterException(spec.commandLine(), "--base-version must be 1 or more, got " + value);
    }
    baseVersion = value;
  }

  /** Runs the job; see {@link SparkJob#runAndExit}. */
  public static void main(String[] args) {
    runAndExit(new UpdateFilterJob(), args);
  }

  @Override
  void checkOptions() {
    if (change.delta != null && change.delta.added == null && change.delta.deleted == null) {
      throw new ParameterException(spec.commandLine(), "with --current, give --added, --deleted or both");
    }
  }

  @Override
  int run(SparkSession spark, PrintWriter out) throws Exception {
    FilterStore store = Locations.open(location, spark.sessionState().newHadoopConf(), "--location");
    if (baseVersion > 0) {
      requireLatest(store, baseVersion);
    }
    StoredFilter base;
    try {
      base = baseVersion > 0 ? store.read(baseVersion) : store.readLatest();
    } catch (FilterVersionNotFoundException e) {
      throw Locations.damagedIfRecorded(store, e); // a data file missing under its commit record: damaged
    }
    List<StructField> keys = base.metadata().keyColumns();
    ChangeSet changeSet;
    String described;
    if (change.delta != null) {
      Dataset<Row> current = read(spark, "--current", change.delta.current, keys, store);
      Dataset<Row> added = change.delta.added != null ? read(spark, "--added", change.delta.added, keys, store)
          : current.limit(0);
      Dataset<Row> deleted = change.delta.deleted != null
          ? read(spark, "--deleted", change.delta.deleted, keys, store) : current.limit(0);
      changeSet = ChangeSet.of(added, deleted, current);
      described = (change.delta.added != null ? "added " + change.delta.added + ", " : "")
          + (change.delta.deleted != null ? "deleted " + change.delta.deleted + ", " : "")
          + "current " + change.delta.current;
    } else {
      changeSet = ChangeSet.between(read(spark, "--before", change.snapshots.before, keys, store),
          read(spark, "--after", change.snapshots.after, keys, store));
      described = "before " + change.snapshots.before + ", after " + change.snapshots.after;
    }
    // A rebuild is made for the false-positive rate the base version's metadata records.
    UpdateResult result = FilterUpdater.update(base, changeSet);
    out.println("version " + base.version().version() + ": " + result.summary());
    out.println("the new version: " + Publishing.statistics(result.filter()));
    // Through the library, so the new version records the rate the base version's metadata records (as the
    // rebuild used), not the filter's own.
    FilterVersion published = FilterUpdater.publish(store, base, result,
        source != null ? source : dataset.format + " change: " + described, Map.of(Publishing.CREATED_BY, spec.name()));
    out.println("published " + published + (result.rebuilt() ? ", rebuilt" : ", updated") + " from version "
        + base.version().version());
    return ExitCodes.OK;
  }

  /**
   * Fails before any work if {@code --base-version} is no longer the latest version (the result could not
   * be published) or does not exist. The publish still checks atomically, for a version published while the job runs.
   */
  private static void requireLatest(FilterStore store, long baseVersion) throws IOException {
    List<Long> versions = store.versionNumbers();
    long latest = versions.isEmpty() ? -1 : versions.get(versions.size() - 1);
    if (latest > baseVersion) {
      throw new FilterConflictException(store.location(), latest, "--base-version " + baseVersion + " is not the "
          + "latest version of " + store.location() + " any more (the latest is " + latest + "), so the change was "
          + "not applied");
    }
    if (!versions.contains(baseVersion)) {
      throw new InputException("--base-version " + baseVersion + ": " + store.location() + " has no version "
          + baseVersion + (versions.isEmpty() ? " (it holds no versions)" : " (its versions: " + describe(versions) + ")"));
    }
  }

  private static String describe(List<Long> versions) {
    return versions.size() <= 10 ? versions.stream().map(String::valueOf).collect(Collectors.joining(", "))
        : versions.get(0) + " to " + versions.get(versions.size() - 1) + ", " + versions.size() + " in all";
  }

  private Dataset<Row> read(SparkSession spark, String option, String pathOrTable, List<StructField> keys,
      FilterStore store) {
    Dataset<Row> data = StructKeys.inStoredOrder(dataset.read(spark, pathOrTable, option), keys);
    try {
      // The stored names are column names; FilterUpdater resolves them quoted, and so does this check.
      KeyColumns.requireMatching(data, KeyColumns.quotedNames(keys), keys, option + " " + pathOrTable,
          store.location());
    } catch (InputException e) {
      // A dataset without rows changes no key, but gives Spark no values to infer types from: a CSV file of only its
      // header has string columns, an empty JSON file none. It stands for no rows of the filter's key columns. So do
      // rows whose keys are all null (a filter holds no null key), whose key columns inference also reads as strings.
      if (data.isEmpty() || withoutKeys(data, keys)) {
        return spark.createDataFrame(List.of(), new StructType(keys.toArray(new StructField[0])));
      }
      throw e;
    }
    return data;
  }

  /** True if {@code data} has the key columns {@code keys} and no row with a non-null value in each of them. */
  private static boolean withoutKeys(Dataset<Row> data, List<StructField> keys) {
    org.apache.spark.sql.Column present = org.apache.spark.sql.functions.lit(true);
    for (String name : KeyColumns.quotedNames(keys)) {
      try {
        present = present.and(data.col(name).isNotNull());
      } catch (Exception e) { // Spark's AnalysisException, which Java sees as checked: no such column
        if (e instanceof org.apache.spark.sql.AnalysisException) {
          return false;
        }
        throw e;
      }
    }
    return data.where(present).isEmpty();
  }
}
