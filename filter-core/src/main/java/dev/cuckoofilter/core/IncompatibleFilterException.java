package dev.cuckoofilter.core;

/**
 * Two filters cannot be merged because a parameter that decides where items live differs; the message
 * names the parameter and both values.
 */
public class IncompatibleFilterException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  public IncompatibleFilterException(String message) {
    super(message);
  }
}
