package dev.cuckoofilter.core;

/** The stream is a cuckoo filter written in a format version this library cannot read. */
public class UnsupportedFormatVersionException extends FilterFormatException {
  private static final long serialVersionUID = 1L;
  private final int version;

  public UnsupportedFormatVersionException(int version, int supported) {
    super("unsupported filter format version " + version + "; this library reads version " + supported);
    this.version = version;
  }

  /** The version found in the stream. */
  public int version() {
    return version;
  }
}
