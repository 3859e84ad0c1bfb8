package dev.cuckoofilter.examples.cli;

import dev.cuckoofilter.examples.common.InputException;
import dev.cuckoofilter.examples.common.Locations;
import dev.cuckoofilter.spark.store.FilterStore;
import dev.cuckoofilter.spark.store.FilterVersionNotFoundException;
import dev.cuckoofilter.spark.store.StoredFilterCorruptException;
import dev.cuckoofilter.spark.store.StoredVersion;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * A {@code cuckoo} subcommand: opens filter locations with the tool's Hadoop configuration and reads them
 * with the store's Spark-free API ({@link FilterStore#readVersion}).
 */
abstract class StoreCommand implements Callable<Integer> {
  @ParentCommand
  CuckooCli cli;

  @Spec
  CommandSpec spec;

  @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
  boolean help;

  /** Where the subcommand reports. */
  PrintWriter out() {
    return spec.commandLine().getOut();
  }

  /**
   * Opens a location to read from.
   *
   * @param what the option that named it, or "location" for a parameter, for messages
   * @throws InputException if it cannot be a filter location ({@link Locations#open})
   */
  FilterStore open(String location, String what) throws IOException {
    return Locations.open(location, cli.hadoopConf(), what);
  }

  /** Opens a location to publish to ({@link Locations#openForPublishing}). */
  FilterStore openForPublishing(String location, String what) throws IOException {
    return Locations.openForPublishing(location, cli.hadoopConf(), what);
  }

  /**
   * The version {@code ref} names, verified.
   *
   * @throws StoredFilterCorruptException also if the version's commit record names a data file that is gone
   */
  StoredVersion read(FilterRef ref) throws IOException {
    return read(open(ref.location(), "location"), ref.version());
  }

  /** Version {@code version} of {@code store} (the latest if 0), verified, as {@link #read(FilterRef)}. */
  static StoredVersion read(FilterStore store, long version) throws IOException {
    try {
      return version > 0 ? store.readVersion(version) : store.readLatestVersion();
    } catch (FilterVersionNotFoundException e) {
      StoredFilterCorruptException damaged = dataFileMissing(store, e.version());
      throw damaged != null ? damaged : e;
    }
  }

  /**
   * After reading {@code version} found its data file gone: the version is damaged if its commit record is
   * still there (retention and removals delete the record first, then the data file), null if it was removed.
   */
  static StoredFilterCorruptException dataFileMissing(FilterStore store, long version) throws IOException {
    IOException damaged = Locations.damagedIfRecorded(store, new FilterVersionNotFoundException(store.location(),
        version, "version " + version + " not found"));
    return damaged instanceof StoredFilterCorruptException ? (StoredFilterCorruptException) damaged : null;
  }

  /** "location version N". */
  static String name(StoredVersion f) {
    return f.version().location() + " version " + f.version().version();
  }

  /**
   * Requires two filters whose entries mean the same: keys that hash alike, and the same geometry and seed
   * (then equal entry codes stand for the same keys).
   *
   * Composite keys must also have the same column names in the same order (case aside), unless
   * {@code ignoreKeyNames}: a composite key hashes its components in order, so (a, b) and (b, a) of the same types
   * pass the type check, yet equal entries would stand for other keys.
   *
   * @param action what is refused, for the message ("merge", "compare")
   * @throws InputException naming the key columns or the first parameter that differs
   */
  static void requireComparable(StoredVersion a, StoredVersion b, String action, boolean ignoreKeyNames) {
    List<KeySchema.Column> aKeys = KeySchema.columns(a.metadata().keyColumnsJson());
    List<KeySchema.Column> bKeys = KeySchema.columns(b.metadata().keyColumnsJson());
    if (!categories(aKeys).equals(categories(bKeys))) {
      throw new InputException("cannot " + action + " " + name(a) + " and " + name(b) + ": their keys differ ("
          + KeySchema.describe(aKeys) + " vs " + KeySchema.describe(bKeys) + ")");
    }
    List<String> aChars = KeySchema.charTypes(a.metadata().keyColumnsJson());
    List<String> bChars = KeySchema.charTypes(b.metadata().keyColumnsJson());
    if (!aChars.equals(bChars)) { // a char key is hashed padded to its length: 'ab ' and 'ab   ' are other entries
      throw new InputException("cannot " + action + " " + name(a) + " and " + name(b) + ": their char key lengths "
          + "differ (" + aChars + " vs " + bChars + "), and a char key is hashed padded to its length");
    }
    if (aKeys.size() > 1 && !ignoreKeyNames && !lowerCaseNames(aKeys).equals(lowerCaseNames(bKeys))) {
      throw new InputException("cannot " + action + " " + name(a) + " and " + name(b) + ": their composite keys have "
          + "other column names (" + KeySchema.describe(aKeys) + " vs " + KeySchema.describe(bKeys) + "), and a "
          + "composite key hashes its columns in order; if the columns are the same, in the same order, under other "
          + "names, add --ignore-key-names");
    }
    String difference = a.filter().parameters().compatibilityDifference(b.filter().parameters());
    if (difference != null) {
      throw new InputException("cannot " + action + " " + name(a) + " and " + name(b) + ": " + difference
          + "; only filters sized alike (same geometry and seed) hold comparable entries");
    }
  }

  private static List<String> lowerCaseNames(List<KeySchema.Column> keyColumns) {
    return keyColumns.stream().map(c -> c.name().toLowerCase(java.util.Locale.ROOT)).toList();
  }

  private static List<String> categories(List<KeySchema.Column> keyColumns) {
    return keyColumns.stream().map(KeySchema.Column::category).toList();
  }
}
