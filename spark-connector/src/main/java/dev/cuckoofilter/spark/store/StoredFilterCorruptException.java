package dev.cuckoofilter.spark.store;

import dev.cuckoofilter.core.CorruptFilterException;

/**
 * A file of a stored version is damaged: the data file is not a valid filter (flipped bytes, truncation,
 * trailing bytes) or is not the file its commit record describes (length or checksums differ), or the
 * commit record itself is unreadable. The message names the location, the version and the file. No
 * filter is returned for such a version.
 */
public class StoredFilterCorruptException extends CorruptFilterException {
  private static final long serialVersionUID = 1L;
  private final String location;
  private final long version;
  private final String file;

  /**
   * @param location the location's URI
   * @param version  the version whose file is damaged
   * @param file     the damaged file's URI
   * @param problem  what is wrong with it
   */
  public StoredFilterCorruptException(String location, long version, String file, String problem) {
    super("location " + location + ", version " + version + ": file " + file + " is corrupt: " + problem);
    this.location = location;
    this.version = version;
    this.file = file;
  }

  /** The location's URI. */
  public String location() {
    return location;
  }

  /** The version whose file is damaged. */
  public long version() {
    return version;
  }

  /** The damaged file's URI. */
  public String file() {
    return file;
  }
}
