/**
 * The distributed build: {@link dev.cuckoofilter.spark.aggregate.CuckooFilterAggregate}, the native
 * Catalyst aggregate behind {@code cuckoo_filter(...)} and {@code CuckooFilters.build}. Partitions
 * collect the distinct entries of their keys ({@link dev.cuckoofilter.spark.aggregate.EntrySetBuffer}),
 * ship them as compact sorted runs ({@link dev.cuckoofilter.spark.aggregate.SortedRun}), and the final
 * step inserts them in canonical order, so the filter's bytes do not depend on partitioning, partition
 * order or task retries.
 */
package dev.cuckoofilter.spark.aggregate;
