package dev.cuckoofilter.bench.paper;

/** Mean, sample variance and range of repeated measurements. */
record Summary(int count, double mean, double variance, double min, double max) {
  static Summary of(double... values) {
    double sum = 0;
    double min = Double.POSITIVE_INFINITY;
    double max = Double.NEGATIVE_INFINITY;
    for (double v : values) {
      sum += v;
      min = Math.min(min, v);
      max = Math.max(max, v);
    }
    double mean = sum / values.length;
    double squares = 0;
    for (double v : values) {
      squares += (v - mean) * (v - mean);
    }
    double variance = values.length > 1 ? squares / (values.length - 1) : 0;
    return new Summary(values.length, mean, variance, min, max);
  }

  double std() {
    return Math.sqrt(variance);
  }
}
