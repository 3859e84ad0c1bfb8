package dev.cuckoofilter.examples.common;

import dev.cuckoofilter.spark.store.FilterConflictException;
import dev.cuckoofilter.spark.store.FilterVersionNotFoundException;
import dev.cuckoofilter.spark.store.KeyColumnsChangedException;
import dev.cuckoofilter.spark.store.StoredFilterCorruptException;
import java.io.PrintWriter;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine;

/**
 * Runs a picocli command and turns its outcome into an exit code ({@link ExitCodes}), for the jobs and
 * the {@code cuckoo} tool alike. Expected problems (bad arguments or inputs, a publish conflict, a damaged
 * stored filter) are reported as one {@code error:} line; anything else also gets its stack trace. Comma-separated
 * list options are checked and stripped of blanks ({@link CommaSeparatedLists}) before the command runs.
 *
 * <p>Nothing here exits the JVM: {@code main} methods pass the returned code to {@link System#exit}, and
 * tests call {@link #execute(Object, PrintWriter, PrintWriter, String...)} in-process.
 */
public final class CommandRunner {
  private CommandRunner() {}

  /** Runs {@code command} with {@code args}, printing to {@code System.out} and {@code System.err}. */
  public static int execute(Object command, String... args) {
    return execute(command, new PrintWriter(System.out, true), new PrintWriter(System.err, true), args);
  }

  /** Runs {@code command} with {@code args}, printing its output to {@code out} and errors to {@code err}. */
  public static int execute(Object command, PrintWriter out, PrintWriter err, String... args) {
    CommandLine cli = new CommandLine(command);
    cli.setOut(out);
    cli.setErr(err);
    cli.setCaseInsensitiveEnumValuesAllowed(true);
    cli.setParameterExceptionHandler(CommandRunner::badArguments);
    cli.setExecutionExceptionHandler((e, commandLine, parseResult) -> failed(e, commandLine));
    // a ParameterException of the lists' check goes to badArguments, as picocli's own do
    cli.setExecutionStrategy(parseResult -> {
      CommaSeparatedLists.apply(parseResult);
      return new CommandLine.RunLast().execute(parseResult);
    });
    try {
      return cli.execute(args);
    } finally {
      out.flush();
      err.flush();
    }
  }

  private static int badArguments(ParameterException e, String[] args) {
    CommandLine cli = e.getCommandLine();
    PrintWriter err = cli.getErr();
    // picocli starts some messages (those of argument groups) with "Error: " of its own
    String message = String.valueOf(e.getMessage());
    message = message.startsWith("Error: ") ? message.substring("Error: ".length()) : message;
    err.println(cli.getCommandSpec().qualifiedName() + ": error: " + message);
    CommandLine.UnmatchedArgumentException.printSuggestions(e, err);
    err.println("Try '" + cli.getCommandSpec().qualifiedName() + " --help' for the options.");
    return ExitCodes.USAGE;
  }

  private static int failed(Exception e, CommandLine cli) {
    PrintWriter err = cli.getErr();
    String prefix = cli.getCommandSpec().qualifiedName() + ": error: ";
    Throwable expected = expectedCause(e);
    if (expected instanceof FilterConflictException) {
      FilterConflictException c = (FilterConflictException) expected;
      err.println(prefix + c.getMessage());
      err.println("Nothing was published. Rerun the command to apply it to version " + c.version() + " of "
          + c.location() + ".");
      return ExitCodes.CONFLICT;
    }
    if (expected instanceof StoredFilterCorruptException) {
      err.println(prefix + expected.getMessage());
      return ExitCodes.CORRUPT;
    }
    if (expected != null) {
      err.println(prefix + expected.getMessage());
      return ExitCodes.USAGE;
    }
    Throwable notOfItsFormat = fileNotOfItsFormat(e);
    if (notOfItsFormat != null) {
      err.println(prefix + "cannot read an input file: " + notOfItsFormat.getMessage());
      return ExitCodes.USAGE;
    }
    err.println(prefix + e);
    e.printStackTrace(err);
    return ExitCodes.FAILURE;
  }

  /**
   * The reader's refusal of a data file that is not of its format (not Parquet, not ORC), among the causes of a failed
   * Spark job: Spark reads a dataset's schema from one of its files, so another such file is found only by the job's
   * tasks, and rerunning fails alike. Null if that was not the problem. Matched by the class that threw, as the
   * readers throw plain RuntimeExceptions.
   */
  private static Throwable fileNotOfItsFormat(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      StackTraceElement[] trace = t.getStackTrace();
      String thrower = trace.length > 0 ? trace[0].getClassName() : "";
      if ((t.getClass() == RuntimeException.class && thrower.equals("org.apache.parquet.hadoop.ParquetFileReader")
          && String.valueOf(t.getMessage()).contains(" is not a Parquet file"))
          || t.getClass().getName().equals("org.apache.orc.FileFormatException")) {
        return t;
      }
    }
    return null;
  }

  /**
   * The exception, or one it wraps, that is an expected outcome with a message meant for the user (Spark
   * wraps what its tasks throw); null if there is none.
   */
  private static Throwable expectedCause(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof FilterConflictException || t instanceof StoredFilterCorruptException
          || t instanceof InputException || t instanceof FilterVersionNotFoundException
          || t instanceof KeyColumnsChangedException) {
        return t;
      }
    }
    return null;
  }
}
