package dev.cuckoofilter.examples.cli;

import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * A stored filter named on the command line: {@code LOCATION} for its latest version, or
 * {@code LOCATION@N} for version N. An {@code @} counts only after the last {@code /} and before digits
 * alone, so URIs with user information ({@code hdfs://user@namenode/...}) keep their meaning.
 *
 * @param location the location URI
 * @param version  the version, or 0 for the latest
 */
record FilterRef(String location, long version) {

  /** Parses {@code LOCATION[@N]}. */
  static FilterRef parse(String text) {
    int at = text.lastIndexOf('@');
    if (at > text.lastIndexOf('/') && at < text.length() - 1
        && text.substring(at + 1).chars().allMatch(Character::isDigit)) {
      long version;
      try {
        version = Long.parseLong(text.substring(at + 1));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("version " + text.substring(at + 1) + " is too large");
      }
      if (version < 1) {
        throw new IllegalArgumentException("versions are numbered from 1, got " + version);
      }
      return new FilterRef(text.substring(0, at), version);
    }
    return new FilterRef(text, 0);
  }

  /** Picocli's converter for {@link FilterRef} arguments. */
  static final class Converter implements ITypeConverter<FilterRef> {
    @Override
    public FilterRef convert(String value) {
      try {
        return parse(value);
      } catch (IllegalArgumentException e) {
        throw new TypeConversionException("'" + value + "' is not LOCATION or LOCATION@VERSION: " + e.getMessage());
      }
    }
  }
}
