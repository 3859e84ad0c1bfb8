package dev.cuckoofilter.examples.common;

import dev.cuckoofilter.spark.store.FilterStore;
import dev.cuckoofilter.spark.store.FilterVersionNotFoundException;
import dev.cuckoofilter.spark.store.StoredFilterCorruptException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.UnsupportedFileSystemException;

/**
 * Opens the filter locations named on a command line, so that a location that cannot be one (an empty
 * name, a scheme no file system serves, a file, a directory of other data) is refused with exit code
 * {@link ExitCodes#USAGE} and a message naming the option, before any work, rather than failing with a
 * stack trace once the work is done.
 */
public final class Locations {
  /** What a filter location directory holds (docs/STORE.md, "Layout"). */
  private static final Set<String> STORE_ENTRIES = Set.of("versions", "data", "_tmp");

  private Locations() {}

  /**
   * Opens {@code location} to read from it.
   *
   * @param what the option or parameter that named it, for messages ({@code --location}, {@code LOCATION})
   * @throws InputException if it cannot be a filter location
   */
  public static FilterStore open(String location, Configuration conf, String what) throws IOException {
    FilterStore store = openStore(location, conf, what);
    FileStatus root = status(store, conf);
    if (root != null && root.isFile()) {
      throw new InputException(what + " " + location + ": " + store.location() + " is a file, not a filter location "
          + "(a directory holding versions/ and data/)");
    }
    return store;
  }

  /**
   * Opens {@code location} to publish to it: it must not exist yet, be empty, or be a filter location
   * (hidden files aside). A directory of other files (a dataset, say) is refused: the store's directories
   * would be added to it, and its readers would trip over them.
   *
   * @throws InputException if it cannot be a filter location
   */
  public static FilterStore openForPublishing(String location, Configuration conf, String what) throws IOException {
    FilterStore store = open(location, conf, what);
    Path root = new Path(store.location());
    FileSystem fs = root.getFileSystem(conf);
    FileStatus[] entries;
    try {
      entries = fs.listStatus(root);
    } catch (FileNotFoundException e) {
      requireCreatable(root, fs, what + " " + location, "location");
      return store; // created on the first publish
    }
    List<String> foreign = new ArrayList<>();
    for (FileStatus entry : entries) {
      String name = entry.getPath().getName();
      if (!name.startsWith(".") && !(entry.isDirectory() && STORE_ENTRIES.contains(name))) { // hidden: .crc, ...
        foreign.add(name);
      }
    }
    if (!foreign.isEmpty()) {
      foreign.sort(null);
      throw new InputException(what + " " + location + ": " + store.location() + " holds other files than a filter "
          + "location's versions/ and data/ (" + describe(foreign) + "); publish to a new or empty directory");
    }
    return store;
  }

  /**
   * Refuses a path that does not exist and cannot be created because the nearest path above it that exists is a file,
   * before any work: creating it (a publish, a Spark write) would fail only once the work is done.
   *
   * @param what the option or parameter and its value, for messages
   * @param noun what the path is, for messages ("location", "output")
   * @throws InputException naming the file
   */
  public static void requireCreatable(Path path, FileSystem fs, String what, String noun) throws IOException {
    for (Path p = path.getParent(); p != null; p = p.getParent()) {
      FileStatus status;
      try {
        status = fs.getFileStatus(p);
      } catch (FileNotFoundException e) {
        continue;
      }
      if (status.isFile()) {
        throw new InputException(what + ": " + p + " is a file, so the " + noun + " cannot be created below it");
      }
      return;
    }
  }

  /**
   * What a read that found a version's data file gone means: the version is damaged if its commit record is still
   * there (retention and removals delete the record first, then the data file, and never the latest version), so
   * the {@link StoredFilterCorruptException} naming the record is returned; otherwise {@code notFound} itself (the
   * version was removed, or never existed).
   */
  public static IOException damagedIfRecorded(FilterStore store, FilterVersionNotFoundException notFound)
      throws IOException {
    long version = notFound.version();
    if (version < 1 || !store.versionNumbers().contains(version)) {
      return notFound;
    }
    String record = store.location() + "/versions/" + String.format(Locale.ROOT, "%020d", version) + ".json";
    StoredFilterCorruptException damaged = new StoredFilterCorruptException(store.location(), version, record,
        "the data file it names is missing (a removed version loses its commit record first, so this one was "
            + "damaged, not removed)");
    damaged.initCause(notFound);
    return damaged;
  }

  private static FilterStore openStore(String location, Configuration conf, String what) throws IOException {
    try {
      return FilterStore.open(location, conf);
    } catch (IllegalArgumentException e) {
      throw new InputException(what + " '" + location + "' is not a usable location: " + e.getMessage(), e);
    } catch (IOException e) {
      if (e.getCause() instanceof UnsupportedFileSystemException) {
        throw new InputException(what + " " + location + ": no file system serves its scheme ("
            + e.getCause().getMessage() + ")", e);
      }
      // FilterStore.open does no I/O but setting up the file system, whose failures are the URI's or the
      // configuration's (an hdfs:///path without a NameNode, a viewfs: URI without mount table), not the store's
      throw new InputException(what + " " + location + ": cannot obtain its file system: "
          + (e.getCause() != null ? e.getCause().getMessage() : e.getMessage()), e);
    }
  }

  /** The status of the location's directory, or null if it does not exist. */
  private static FileStatus status(FilterStore store, Configuration conf) throws IOException {
    Path root = new Path(store.location());
    FileSystem fs = root.getFileSystem(conf);
    try {
      return fs.getFileStatus(root);
    } catch (FileNotFoundException e) {
      return null;
    }
  }

  private static String describe(List<String> names) {
    List<String> shown = names.size() > 5 ? names.subList(0, 5) : names;
    return String.join(", ", shown) + (names.size() > 5 ? " and " + (names.size() - 5) + " more" : "");
  }
}
