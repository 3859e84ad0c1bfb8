package dev.cuckoofilter.core;

/**
 * The stream is damaged or not a filter: wrong magic, impossible parameters, inconsistent lengths or
 * counts, truncation, trailing bytes, or a checksum mismatch.
 */
public class CorruptFilterException extends FilterFormatException {
  private static final long serialVersionUID = 1L;

  public CorruptFilterException(String message) {
    super(message);
  }
}
