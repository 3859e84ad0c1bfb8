package dev.cuckoofilter.core;

/**
 * A filter cannot hold the fingerprints it is given: a merge could not place every fingerprint of the
 * other filter (the target filter is then left exactly as it was before the call), or a
 * {@link CanonicalBuilder} was given more entries than its parameters hold.
 */
public class FilterFullException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  public FilterFullException(String message) {
    super(message);
  }
}
