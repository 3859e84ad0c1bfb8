package dev.cuckoofilter.spark.store;

import java.io.IOException;

/**
 * A publish lost against another writer: the version it was based on ({@link FilterMetadata#parentVersion()})
 * is no longer the latest at the location. Nothing of the losing publish stays visible. Retry by reading
 * {@link #version()} (or the latest version), reapplying the change, and publishing with that version as
 * the parent.
 */
public class FilterConflictException extends IOException {
  private static final long serialVersionUID = 1L;
  private final String location;
  private final long version;

  /**
   * @param location the location's URI
   * @param version  the version published by another writer, on which a retry must be based
   */
  public FilterConflictException(String location, long version) {
    this(location, version, null);
  }

  /** As {@link #FilterConflictException(String, long)}, with a sentence on how the conflict arose. */
  public FilterConflictException(String location, long version, String detail) {
    super("location " + location + ": version " + version + " was published concurrently by another writer (retry on"
        + " version " + version + ")" + (detail == null ? "" : "; " + detail));
    this.location = location;
    this.version = version;
  }

  /** The location's URI. */
  public String location() {
    return location;
  }

  /** The version that won, on which a retry must be based. */
  public long version() {
    return version;
  }
}
