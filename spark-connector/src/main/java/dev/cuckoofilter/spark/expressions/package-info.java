/**
 * Catalyst expressions, written in Java on {@link dev.cuckoofilter.spark.expressions.JavaExpression}:
 * the probe {@link dev.cuckoofilter.spark.expressions.CuckooMightContain} ({@code
 * cuckoo_might_contain}, code-generated, allocation-free per row, with rows-in / rows-out {@link
 * dev.cuckoofilter.spark.expressions.PruneMetrics}), the key hash the build uses ({@link
 * dev.cuckoofilter.spark.expressions.CuckooKeyHash}), {@code cuckoo_filter_info}, and how a probe
 * reaches its filter once per executor JVM ({@link dev.cuckoofilter.spark.expressions.FilterHandle}).
 */
package dev.cuckoofilter.spark.expressions;
