package dev.cuckoofilter.bench.paper;

import java.util.Arrays;

/**
 * Mean, sample variance, median and range of repeated measurements. Throughputs are reported as
 * medians: on a shared machine a run slowed by another process is an outlier, not part of the signal.
 */
record Summary(int count, double mean, double variance, double median, double min, double max) {
  static Summary of(double... values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int n = sorted.length;
    double mean = Arrays.stream(sorted).sum() / n;
    double squares = 0;
    for (double v : sorted) {
      squares += (v - mean) * (v - mean);
    }
    double median = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    return new Summary(n, mean, n > 1 ? squares / (n - 1) : 0, median, sorted[0], sorted[n - 1]);
  }

  double std() {
    return Math.sqrt(variance);
  }
}
