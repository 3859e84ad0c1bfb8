package dev.cuckoofilter.spark.store;

import dev.cuckoofilter.core.CuckooFilter;

/**
 * A filter read from a {@link FilterStore}: the version, the metadata published with it, and the filter
 * itself, verified against the checksums of its file and of its commit record.
 *
 * @param version  which version this is
 * @param metadata what was published with it (key columns and types, sizing, lineage)
 * @param filter   the filter
 */
public record StoredFilter(FilterVersion version, FilterMetadata metadata, CuckooFilter filter) {}
