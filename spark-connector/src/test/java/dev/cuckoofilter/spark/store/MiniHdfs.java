package dev.cuckoofilter.spark.store;

import java.io.File;
import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.MiniDFSCluster;

/**
 * An HDFS cluster (one NameNode, one DataNode) in the test JVM, listening on 127.0.0.1 only. Also used by
 * the examples' tests (the connector's test-jar).
 */
public final class MiniHdfs implements AutoCloseable {
  /**
   * How long a client first waits when closing a file before the DataNode reported its last block (400
   * ms by default, which here would be most of each publish).
   */
  public static final String CLIENT_RETRY_DELAY = "dfs.client.block.write.locateFollowingBlock.initial.delay.ms";
  private final MiniDFSCluster cluster;

  private MiniHdfs(MiniDFSCluster cluster) {
    this.cluster = cluster;
  }

  public static MiniHdfs start(File baseDir) throws IOException {
    Configuration conf = new Configuration();
    conf.set("dfs.namenode.rpc-bind-host", "127.0.0.1");
    conf.set("dfs.namenode.http-address", "127.0.0.1:0");
    conf.set("dfs.namenode.https-address", "127.0.0.1:0");
    conf.set("dfs.datanode.address", "127.0.0.1:0");
    conf.set("dfs.datanode.http.address", "127.0.0.1:0");
    conf.set("dfs.datanode.ipc.address", "127.0.0.1:0");
    conf.setInt("dfs.replication", 1);
    // Deleted blocks are invalidated quickly, so "removed under a reader" is exercised for real.
    conf.setInt("dfs.heartbeat.interval", 1);
    conf.setInt(CLIENT_RETRY_DELAY, 20);
    MiniDFSCluster cluster = new MiniDFSCluster.Builder(conf, baseDir).numDataNodes(1)
        .build();
    cluster.waitActive();
    return new MiniHdfs(cluster);
  }

  /** hdfs://127.0.0.1:port */
  public String uri() throws IOException {
    return cluster.getFileSystem().getUri().toString();
  }

  /** A configuration for clients of this cluster. */
  public Configuration clientConf() {
    Configuration conf = new Configuration();
    conf.set("fs.defaultFS", cluster.getURI().toString());
    conf.setInt("dfs.replication", 1);
    conf.setInt(CLIENT_RETRY_DELAY, 20);
    return conf;
  }

  @Override
  public void close() {
    cluster.shutdown(true);
  }
}
