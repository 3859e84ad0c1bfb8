package dev.cuckoofilter.core;

import java.io.IOException;

/**
 * A byte stream is not a valid cuckoo filter. The message names what is wrong (which field, which
 * value, what was expected). No filter is ever returned for such input.
 */
public class FilterFormatException extends IOException {
  private static final long serialVersionUID = 1L;

  public FilterFormatException(String message) {
    super(message);
  }
}
