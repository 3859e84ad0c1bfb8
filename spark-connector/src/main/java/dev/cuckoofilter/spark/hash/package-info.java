/**
 * Spark values under filter-core's hash contract (docs/HASHING.md, "Spark types"): {@link
 * dev.cuckoofilter.spark.hash.KeyHashing} hashes a key of any supported type, or a composite key, so a
 * filter built in Spark answers like {@code CuckooFilter.mightContain} in plain Java for the same
 * logical key; {@link dev.cuckoofilter.spark.hash.KeyTypes} decides which types can be keys and which
 * hash alike.
 */
package dev.cuckoofilter.spark.hash;
