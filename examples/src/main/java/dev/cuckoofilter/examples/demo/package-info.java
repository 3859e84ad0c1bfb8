/**
 * The quick-start demo, the README's first command ({@link
 * dev.cuckoofilter.examples.demo.QuickStartDemo}): generates orders and customers as Parquet, builds a
 * filter of a filtered dimension's keys, stores it, prunes a join with it and checks the result, applies
 * an incremental update and checks again, then prints a summary, all on an embedded local Spark.
 */
package dev.cuckoofilter.examples.demo;
