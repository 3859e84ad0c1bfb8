package dev.cuckoofilter.bench.paper;

import java.util.function.LongSupplier;

/**
 * Wall-clock timing with {@code System.nanoTime}. JMH is not needed here: every timed operation runs
 * millions of filter operations, after untimed warm-up runs that let the JIT compile the loops.
 */
final class Timing {
  /** Results are added here so the JIT cannot drop the work that produced them. */
  private static volatile long sink;

  private Timing() {}

  /** The result of one timed run. */
  record Timed(long result, long nanos) {
    double mops(long operations) {
      return operations * 1e3 / nanos;
    }
  }

  static Timed time(LongSupplier operation) {
    long start = System.nanoTime();
    long result = operation.getAsLong();
    long nanos = System.nanoTime() - start;
    sink += result;
    return new Timed(result, nanos);
  }

  /** Throughput (million operations per second) of {@code repetitions} runs after {@code warmUps} untimed ones. */
  static Summary mops(long operations, LongSupplier operation, int warmUps, int repetitions) {
    for (int i = 0; i < warmUps; i++) {
      time(operation);
    }
    double[] rates = new double[repetitions];
    for (int i = 0; i < repetitions; i++) {
      rates[i] = time(operation).mops(operations);
    }
    return Summary.of(rates);
  }
}
