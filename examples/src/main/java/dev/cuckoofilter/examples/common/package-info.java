/**
 * What the jobs and the {@code cuckoo} tool share: running a picocli command with uniform error reporting
 * and exit codes, sizing options, and publishing to a filter store. Free of Spark's classes, since the
 * tool's jar has none.
 */
package dev.cuckoofilter.examples.common;
