package dev.cuckoofilter.spark.store;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.fs.Path;

/** Directory and file names of a filter location (docs/STORE.md, "Layout"). */
final class StoreLayout {
  static final String VERSIONS_DIR = "versions";
  static final String DATA_DIR = "data";
  static final String TEMP_DIR = "_tmp";

  /** 20 digits, as many as the largest long has, so that names sort like numbers. */
  private static final Pattern COMMIT_NAME = Pattern.compile("(\\d{20})\\.json");
  private static final Pattern DATA_NAME =
      Pattern.compile("(\\d{20})-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\\.ckf");

  final Path root;
  final Path versions;
  final Path data;
  final Path temp;

  StoreLayout(Path root) {
    this.root = root;
    this.versions = new Path(root, VERSIONS_DIR);
    this.data = new Path(root, DATA_DIR);
    this.temp = new Path(root, TEMP_DIR);
  }

  // Locale.ROOT: the default locale may format digits other than 0-9 (Arabic-Indic, Devanagari, ...), names
  // every reader's listing would ignore.
  static String commitName(long version) {
    return String.format(Locale.ROOT, "%020d.json", version);
  }

  static String dataName(long version, String commitId) {
    return String.format(Locale.ROOT, "%020d-%s.ckf", version, commitId);
  }

  Path commitFile(long version) {
    return new Path(versions, commitName(version));
  }

  Path dataFile(String name) {
    return new Path(data, name);
  }

  /** The version a commit file name stands for, or -1 if the name is not a commit file's. */
  static long versionOfCommitName(String name) {
    Matcher m = COMMIT_NAME.matcher(name);
    return m.matches() ? parseVersion(m.group(1)) : -1;
  }

  /** The version a data file name was written for, or -1 if the name is not a data file's. */
  static long versionOfDataName(String name) {
    Matcher m = DATA_NAME.matcher(name);
    return m.matches() ? parseVersion(m.group(1)) : -1;
  }

  private static long parseVersion(String digits) {
    try {
      long v = Long.parseLong(digits);
      return v >= 1 ? v : -1;
    } catch (NumberFormatException e) {
      return -1; // more than Long.MAX_VALUE: not a name this store writes
    }
  }
}
