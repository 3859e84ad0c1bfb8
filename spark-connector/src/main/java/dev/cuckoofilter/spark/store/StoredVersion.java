package dev.cuckoofilter.spark.store;

import dev.cuckoofilter.core.CuckooFilter;

/**
 * A version read from a {@link FilterStore} without Spark ({@link FilterStore#readVersion(long)}): the
 * filter, verified like a {@link StoredFilter}, with its metadata as the commit record holds it.
 *
 * @param version  which version this is
 * @param metadata what was published with it, key columns as Spark schema JSON
 * @param filter   the filter
 */
public record StoredVersion(FilterVersion version, VersionMetadata metadata, CuckooFilter filter) {}
