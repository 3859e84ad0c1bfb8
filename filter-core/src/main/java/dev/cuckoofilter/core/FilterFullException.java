package dev.cuckoofilter.core;

/**
 * A merge could not place every fingerprint of the other filter. The target filter is left exactly as
 * it was before the call.
 */
public class FilterFullException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  public FilterFullException(String message) {
    super(message);
  }
}
