/**
 * JMH benchmarks of filter-core against Spark's, Guava's and Parquet's Bloom filters, fastfilter_java's
 * Cuckoo16 and CuckooFilter4J ({@link dev.cuckoofilter.bench.FilterKind}): lookups, batched lookups,
 * builds and deletes, per call and batched, and {@link dev.cuckoofilter.bench.SpaceAndAccuracy}.
 * Commands and results: docs/BENCHMARKS.md.
 */
package dev.cuckoofilter.bench;
