package dev.cuckoofilter.core.format;

import dev.cuckoofilter.core.FilterParameters;
import dev.cuckoofilter.core.table.BucketStorage;
import dev.cuckoofilter.core.table.Stash;

/**
 * The complete state of a filter as the binary format sees it: parameters, counters, stash and table.
 * Written from a live filter's state without copying, and produced by the reader after validation.
 */
public record FilterImage(FilterParameters parameters, long itemCount, long failedInserts, Stash stash,
    BucketStorage storage) {}
