package dev.cuckoofilter.spark.prune;

import java.util.Locale;

/**
 * Which side of a join may be pruned with a filter of the other side's keys without changing the join's
 * result: a side whose rows without a match never reach the output. The left side of inner, right outer
 * and left semi joins; the right side of inner, left outer, left semi and left anti joins. Never a side
 * an outer join preserves, the left side of an anti join, a full outer or a cross join.
 */
public final class JoinPruning {
  /** The side of {@code left.join(right, ...)} to prune. */
  public enum Side {
    LEFT, RIGHT
  }

  private JoinPruning() {}

  /** Spark's join type name, normalized as {@code Dataset.join} does. */
  public static String normalize(String joinType) {
    String t = joinType.toLowerCase(Locale.ROOT).replace("_", "");
    switch (t) {
      case "inner":
        return "inner";
      case "left":
      case "leftouter":
        return "left_outer";
      case "right":
      case "rightouter":
        return "right_outer";
      case "full":
      case "fullouter":
      case "outer":
        return "full_outer";
      case "semi":
      case "leftsemi":
        return "left_semi";
      case "anti":
      case "leftanti":
        return "left_anti";
      case "cross":
        return "cross";
      default:
        throw new IllegalArgumentException("unknown join type '" + joinType + "'; expected inner, left_outer, "
            + "right_outer, full_outer, left_semi, left_anti or cross");
    }
  }

  /** Null if {@code side} may be pruned in a join of this type, else the reason it may not. */
  public static String refusal(String joinType, Side side) {
    String t = normalize(joinType);
    boolean ok;
    switch (t) {
      case "inner":
        ok = true;
        break;
      case "right_outer":
        ok = side == Side.LEFT;
        break;
      case "left_outer":
      case "left_anti":
        ok = side == Side.RIGHT;
        break;
      case "left_semi":
        ok = true;
        break;
      default:
        ok = false;
    }
    if (ok) {
      return null;
    }
    if (t.equals("cross")) {
      return "a cross join has no keys to prune by";
    }
    if (t.equals("left_anti")) {
      return "the left side of a left anti join is the result of its non-matching rows; pruning them would "
          + "change the result";
    }
    return "the " + side.name().toLowerCase(Locale.ROOT) + " side of a " + t + " join keeps its rows without a "
        + "match; pruning them would change the result";
  }
}
