package dev.cuckoofilter.spark.store;

/**
 * A publish was refused because its key columns are not those of the location's latest version: other
 * column names (or another number or order of them), or types that do not hash alike (docs/STORE.md,
 * "Key columns"). Publishing it would re-key the location, and probes and updates made for its key
 * columns would be refused from then on. The message names the location, both versions and the columns
 * that differ, with their types. To re-key a location deliberately, publish with
 * {@link FilterStore#publishWithNewKeys}.
 */
public class KeyColumnsChangedException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;
  private final String location;
  private final long latestVersion;

  /**
   * @param location      the location's URI
   * @param latestVersion the latest version, whose key columns the publish does not have
   * @param message       the complete message, naming the location, the versions and the columns
   */
  public KeyColumnsChangedException(String location, long latestVersion, String message) {
    super(message);
    this.location = location;
    this.latestVersion = latestVersion;
  }

  /** The location's URI. */
  public String location() {
    return location;
  }

  /** The latest version, whose key columns the refused publish does not have. */
  public long latestVersion() {
    return latestVersion;
  }
}
