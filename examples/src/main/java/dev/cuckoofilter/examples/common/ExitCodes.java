package dev.cuckoofilter.examples.common;

/**
 * Exit codes of the spark-submit jobs and the {@code cuckoo} tool, the same for all of them so that
 * schedulers can tell "fix the command" from "rerun it" (docs/JOBS.md, "Exit codes").
 */
public final class ExitCodes {
  /** The command did what it was asked. */
  public static final int OK = 0;
  /** An unexpected failure (I/O, a failed Spark job); the message and stack trace are on stderr. */
  public static final int FAILURE = 1;
  /**
   * The command cannot run as given: a bad or missing option, a missing input path or table, an unknown
   * column, a key type that cannot be hashed or does not match the stored filter, a version that does
   * not exist. Rerunning the same command fails again.
   */
  public static final int USAGE = 2;
  /**
   * Another writer published a version of the same filter location first (optimistic concurrency):
   * nothing was published; rerunning the command applies it to the new latest version.
   */
  public static final int CONFLICT = 3;
  /** A stored filter is damaged (checksum or structure); the message names the file. */
  public static final int CORRUPT = 4;

  private ExitCodes() {}
}
