// merge-compiler-regions: groups the nodes each target claimed into as few regions as
// possible, recorded as `uma.region = <id>` (see uma/partition/partition.h).
//
// Assumes: a verified module whose host functions carry `uma.target` on the nodes targets
// claimed (annotate-target).
// Guarantees, per host function:
// - every node that can be part of a region (annotations.h: not a constant, not a call to a
//   compiled function) and has a uma.target gets a uma.region; no other node keeps one;
// - a region holds nodes of one target, connected through their operands;
// - with each region made one node, as partition-graph will, the graph has no cycle: no
//   path leaves a region and enters it again, directly or through other regions. Merging
//   stops where it would: a region that reaches a node through another target's region or
//   through host nodes does not take in that node;
// - ids are 0, 1, ... in the order of each region's first node, so the result does not
//   depend on anything but the function.
//
// How: one walk in topological order. A node may join the region of an operand of its
// target, and merge the regions of several such operands, unless that would close a cycle.
// Outlining contracts each region to one node, so what matters is reachability in the
// graph where each region is one node: each region and each node outside the regions keeps
// its "taint", the regions from which a path reaches it after leaving the region. Two
// regions may merge when neither is in the other's taint; a node may join a region unless
// the region reaches it by a path that leaves the region.
//
// A taint is read when a node is visited, so it must be complete then and stay so: once a
// node outside a region has read the region's taint (the region is "exposed"), the region
// may not gain regions that reach it, or that node's taint (and its users') would miss
// them. Merges that would add such regions are not made; this is what keeps every taint
// complete without revisiting nodes, and it only costs merges where regions of several
// targets or host nodes interleave.
//
// Regions merge with union-find, so sets hold ids that may since have merged: they are
// compared through find(). A region none of whose values has an unvisited user can never
// grow or merge again, so it is dropped from the sets (taints are complete, so what reaches
// it is in them already): sets stay as small as the number of regions still open, which
// keeps the walk near-linear in the function's size.
#include <algorithm>
#include <unordered_map>

#include "annotations.h"
#include "uma/partition/partition.h"

namespace uma {
namespace {

constexpr std::size_t kNoRegion = static_cast<std::size_t>(-1);

using RegionSet = std::vector<std::size_t>;

class RegionMerger {
 public:
  explicit RegionMerger(Function& function) : function_(function) {}

  Expected<bool> run() {
    std::vector<Node*> nodes = function_.node_list();
    index_.reserve(nodes.size());
    for (std::size_t i = 0; i < nodes.size(); ++i) index_.emplace(nodes[i], i);
    infos_.resize(nodes.size());
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      UMA_TRY_ASSIGN(std::optional<std::string> target, annotations::region_target_of(*nodes[i]));
      visit(*nodes[i], infos_[i], target);
    }
    return write_ids(nodes);
  }

 private:
  struct NodeInfo {
    std::size_t region = kNoRegion;
    RegionSet taint;  // for nodes outside regions; a region's nodes use the region's
  };

  struct Region {
    std::size_t parent;
    std::string target;
    RegionSet taint;
    std::int64_t open_uses = 0;  // operands of unvisited nodes that read the region
    bool exposed = false;        // a node outside it has read its taint
  };

  std::size_t find(std::size_t r) {
    while (regions_[r].parent != r) {
      regions_[r].parent = regions_[regions_[r].parent].parent;
      r = regions_[r].parent;
    }
    return r;
  }

  bool contains(const RegionSet& set, std::size_t region) {
    return std::any_of(set.begin(), set.end(), [&](std::size_t r) { return find(r) == region; });
  }

  // Whether every region of `set` other than `a`, `b` and those that can no longer change
  // is in `taint`.
  bool covered(const RegionSet& set, const RegionSet& taint, std::size_t a, std::size_t b) {
    return std::all_of(set.begin(), set.end(), [&](std::size_t r) {
      r = find(r);
      return r == a || r == b || regions_[r].open_uses == 0 || contains(taint, r);
    });
  }

  // Current ids, without duplicates or regions that can no longer change.
  void normalize(RegionSet& set) {
    for (std::size_t& r : set) r = find(r);
    std::erase_if(set, [&](std::size_t r) { return regions_[r].open_uses == 0; });
    std::sort(set.begin(), set.end());
    set.erase(std::unique(set.begin(), set.end()), set.end());
  }

  // Whether regions `a` and `b` (roots) may become one, given the regions `direct` that
  // reach the merged region directly through the node being visited: neither may reach
  // the other by a path that leaves it, and an exposed one may not gain regions reaching it.
  bool can_merge(std::size_t a, std::size_t b, const RegionSet& direct) {
    const Region& ra = regions_[a];
    const Region& rb = regions_[b];
    if (contains(ra.taint, b) || contains(rb.taint, a)) return false;
    if (ra.exposed && !(covered(rb.taint, ra.taint, a, b) && covered(direct, ra.taint, a, b)))
      return false;
    if (rb.exposed && !(covered(ra.taint, rb.taint, a, b) && covered(direct, rb.taint, a, b)))
      return false;
    return true;
  }

  void merge(std::size_t into, std::size_t other) {
    Region& a = regions_[into];
    Region& b = regions_[other];
    b.parent = into;
    a.open_uses += b.open_uses;
    a.exposed = a.exposed || b.exposed;
    a.taint.insert(a.taint.end(), b.taint.begin(), b.taint.end());
    b.taint.clear();
    b.taint.shrink_to_fit();
  }

  void visit(const Node& node, NodeInfo& info, const std::optional<std::string>& target) {
    // `base`: regions that reach an operand by a path leaving them, and so reach this node
    // that way too. `direct`: the operands' regions, in operand order.
    RegionSet base;
    RegionSet direct;
    for (const Value* operand : node.operands()) {
      if (operand->is_param()) continue;
      const NodeInfo& from = infos_[index_.at(operand->producer())];
      if (from.region == kNoRegion) {
        base.insert(base.end(), from.taint.begin(), from.taint.end());
      } else {
        std::size_t region = find(from.region);
        const RegionSet& taint = regions_[region].taint;
        base.insert(base.end(), taint.begin(), taint.end());
        direct.push_back(region);
      }
    }
    normalize(base);

    if (target) {
      // The node starts as a region of its own, then merges with its operands' regions.
      info.region = regions_.size();
      regions_.push_back(Region{info.region, *target, base, 0, false});
      for (std::size_t candidate : direct) {
        candidate = find(candidate);
        std::size_t current = find(info.region);
        if (candidate == current || regions_[candidate].target != *target ||
            contains(base, candidate) || !can_merge(current, candidate, direct))
          continue;
        merge(candidate, current);
      }
    }

    // An operand's region the node is not in is left on the way to the node's users.
    std::size_t own = info.region == kNoRegion ? kNoRegion : find(info.region);
    for (std::size_t r : direct) {
      Region& region = regions_[find(r)];
      --region.open_uses;
      if (find(r) != own) {
        region.exposed = true;
        base.push_back(r);
      }
    }
    if (own == kNoRegion) {
      normalize(base);
      info.taint = std::move(base);
      return;
    }
    Region& region = regions_[own];
    for (std::size_t i = 0; i < node.num_results(); ++i)
      for (const Use& use : node.result(i)->uses())
        if (use.user != nullptr) ++region.open_uses;
    region.taint.insert(region.taint.end(), base.begin(), base.end());
    normalize(region.taint);
  }

  // Numbers the regions in the order of their first node and writes the attributes.
  bool write_ids(const std::vector<Node*>& nodes) {
    bool changed = false;
    std::unordered_map<std::size_t, std::int64_t> ids;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      AttrMap& attrs = nodes[i]->mutable_attrs();
      if (infos_[i].region == kNoRegion) {
        changed |= attrs.has(kRegionAttr);
        attrs.erase(kRegionAttr);
        continue;
      }
      auto [it, added] = ids.emplace(find(infos_[i].region), static_cast<std::int64_t>(ids.size()));
      const Attribute* old = attrs.find(kRegionAttr);
      if (old != nullptr && attr_equal(*old, Attribute(it->second))) continue;
      attrs.set(std::string(kRegionAttr), it->second);
      changed = true;
    }
    return changed;
  }

  Function& function_;
  std::unordered_map<const Node*, std::size_t> index_;
  std::vector<NodeInfo> infos_;
  std::vector<Region> regions_;
};

class MergeCompilerRegionsPass final : public Pass {
 public:
  std::string_view name() const override { return "merge-compiler-regions"; }

  Expected<bool> run(Module& module) override {
    bool changed = false;
    for (Function* function : module.functions()) {
      if (!annotations::is_host_function(*function)) continue;
      UMA_TRY_ASSIGN(bool merged, RegionMerger(*function).run());
      changed |= merged;
    }
    return changed;
  }
};

}  // namespace

std::unique_ptr<Pass> create_merge_compiler_regions_pass(PartitionOptions) {
  return std::make_unique<MergeCompilerRegionsPass>();
}

}  // namespace uma
