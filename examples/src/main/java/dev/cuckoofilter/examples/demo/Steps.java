package dev.cuckoofilter.examples.demo;

import java.io.PrintStream;
import java.util.Locale;

/**
 * Numbered progress lines for the demo's steps, each with its wall time. Spark's console progress bar
 * (on standard error) shows the stages of the long steps in between.
 */
final class Steps {
  /** The body of a step; it may throw anything, the demo stops on the first failure. */
  @FunctionalInterface
  interface Body<T> {
    T run() throws Exception;
  }

  /** What a step returned and how long it took. */
  record Timed<T>(T value, double seconds) {}

  private final PrintStream out;
  private final int total;
  private int current;

  Steps(PrintStream out, int total) {
    this.out = out;
    this.total = total;
  }

  /** Prints the step's title, runs it and prints its time. */
  <T> Timed<T> run(String title, Body<T> body) throws Exception {
    current++;
    out.printf(Locale.ROOT, "[%d/%d] %s%n", current, total, title);
    out.flush();
    Timed<T> timed = time(body);
    out.printf(Locale.ROOT, "      done in %s%n", seconds(timed.seconds()));
    return timed;
  }

  /** Runs {@code body} and measures its wall time, printing nothing. */
  static <T> Timed<T> time(Body<T> body) throws Exception {
    long start = System.nanoTime();
    T value = body.run();
    return new Timed<>(value, (System.nanoTime() - start) / 1e9);
  }

  static String seconds(double s) {
    return String.format(Locale.ROOT, "%.1f s", s);
  }
}
