package dev.cuckoofilter.spark.store;

import java.io.FileNotFoundException;

/**
 * The requested version does not exist at the location: it was never published, retention removed it
 * (possibly while it was being read), or the location has no version at all ({@link #version()} is then
 * -1). Never answered with another version's filter.
 */
public class FilterVersionNotFoundException extends FileNotFoundException {
  private static final long serialVersionUID = 1L;
  private final String location;
  private final long version;

  /**
   * @param location the location's URI
   * @param version  the version asked for, -1 when the latest was asked for and there is none
   * @param message  the complete message, naming the location and the version
   */
  public FilterVersionNotFoundException(String location, long version, String message) {
    super(message);
    this.location = location;
    this.version = version;
  }

  /** The location's URI. */
  public String location() {
    return location;
  }

  /** The version asked for, or -1 if the latest version was asked for and the location has none. */
  public long version() {
    return version;
  }
}
