package dev.cuckoofilter.examples.common;

/**
 * The input named on the command line is unusable (a missing path, an unknown column, a key type that
 * does not fit): reported as one line naming the problem, with exit code {@link ExitCodes#USAGE}, and no
 * stack trace, since nothing went wrong inside the program.
 */
public class InputException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** @param message what is wrong, naming the option, path, column or type concerned */
  public InputException(String message) {
    super(message);
  }

  /** As {@link #InputException(String)}, keeping the exception that revealed the problem. */
  public InputException(String message, Throwable cause) {
    super(message, cause);
  }
}
