// aclnnViewCopy in the style of CANN's sample (ops-math's
// test_aclnn_view_copy.cpp, which includes "aclnn_view_copy.h" directly):
// its own call first (dst and src of five ones, windows of one element at
// offset 1, INT32 metadata tensors on the device, y a third tensor);
// then a [3, 4] float dst whose rows 0..2, columns 1..3 receive a 2x2
// window of src (INT64 metadata), every element checked; then in place
// (dst_out is dst) with a stride-0 read; then the first phase's rules:
// metadata of mixed dtypes, a window past the end, different sizes, a
// null tensor (docs/ops.md §34).
#include <iostream>
#include <vector>
#include "acl/acl.h"
#include "aclnn_view_copy.h"
#include "common.h"

struct Meta {
    std::vector<void*> addrs;
    std::vector<aclTensor*> t;
};

template <typename I>
static int MakeMeta(const std::vector<std::vector<int64_t>>& values, aclDataType dt, Meta& m)
{
    for (const auto& v : values) {
        std::vector<I> host(v.begin(), v.end());
        void* addr = nullptr;
        aclTensor* t = nullptr;
        auto ret = CreateAclTensor(host, {static_cast<int64_t>(host.size())}, &addr, dt, &t);
        CHECK_RET(ret == ACL_SUCCESS, return ret);
        m.addrs.push_back(addr);
        m.t.push_back(t);
    }
    return 0;
}

static void FreeMeta(Meta& m)
{
    for (auto* t : m.t) {
        aclDestroyTensor(t);
    }
    for (auto* a : m.addrs) {
        aclrtFree(a);
    }
}

static int Run(aclrtStream stream, aclTensor* dst, Meta& m, aclTensor* src, aclTensor* out)
{
    uint64_t workspaceSize = 0;
    aclOpExecutor* executor = nullptr;
    auto ret = aclnnViewCopyGetWorkspaceSize(dst, m.t[0], m.t[1], m.t[2], src, m.t[3], m.t[4], m.t[5], out,
                                             &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnViewCopyGetWorkspaceSize failed. ERROR: %d\n", ret); return ret);
    void* workspaceAddr = nullptr;
    if (workspaceSize > 0) {
        ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
        CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret); return ret);
    }
    ret = aclnnViewCopy(workspaceAddr, workspaceSize, executor, stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnViewCopy failed. ERROR: %d\n", ret); return ret);
    ret = aclrtSynchronizeStream(stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n", ret); return ret);
    if (workspaceAddr != nullptr) {
        aclrtFree(workspaceAddr);
    }
    return 0;
}

template <typename T>
static int Read(void* addr, size_t n, std::vector<T>& out)
{
    out.assign(n, T(0));
    return aclrtMemcpy(out.data(), n * sizeof(T), addr, n * sizeof(T), ACL_MEMCPY_DEVICE_TO_HOST);
}

int main()
{
    int32_t deviceId = 0;
    aclrtStream stream;
    auto ret = Init(deviceId, &stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("Init acl failed. ERROR: %d\n", ret); return ret);

    // 1. CANN's own call: five ones, windows of one element at offset 1.
    {
        std::vector<float> ones(5, 1), zeros(5, 0);
        void *dAddr = nullptr, *sAddr = nullptr, *yAddr = nullptr;
        aclTensor *dst = nullptr, *src = nullptr, *y = nullptr;
        CHECK_RET(CreateAclTensor(ones, {5}, &dAddr, aclDataType::ACL_FLOAT, &dst) == 0, return 1);
        CHECK_RET(CreateAclTensor(ones, {5}, &sAddr, aclDataType::ACL_FLOAT, &src) == 0, return 1);
        CHECK_RET(CreateAclTensor(zeros, {5}, &yAddr, aclDataType::ACL_FLOAT, &y) == 0, return 1);
        Meta m;
        CHECK_RET(MakeMeta<int32_t>({{1}, {1}, {1}, {1}, {1}, {1}}, aclDataType::ACL_INT32, m) == 0, return 1);
        CHECK_RET(Run(stream, dst, m, src, y) == 0, return 1);
        std::vector<float> got;
        CHECK_RET(Read(yAddr, 5, got) == ACL_SUCCESS, return 1);
        for (int64_t i = 0; i < 5; i++) {
            LOG_PRINT("result[%ld] is: %f\n", i, got[i]);
            CHECK_RET(got[i] == 1.0f, LOG_PRINT("y[%ld] = %f, expected 1\n", i, got[i]); return 1);
        }
        FreeMeta(m);
        aclDestroyTensor(dst);
        aclDestroyTensor(src);
        aclDestroyTensor(y);
        aclrtFree(dAddr);
        aclrtFree(sAddr);
        aclrtFree(yAddr);
    }

    // 2. A 2x2 window of src into rows 0..2, columns 1..3 of a [3, 4] dst.
    std::vector<float> dHost(12), sHost = {10, 20, 30, 40, 50, 60};
    for (int i = 0; i < 12; i++) {
        dHost[i] = static_cast<float>(-i);
    }
    void *dAddr = nullptr, *sAddr = nullptr, *yAddr = nullptr;
    aclTensor *dst = nullptr, *src = nullptr, *y = nullptr;
    std::vector<float> zeros(12, 0);
    CHECK_RET(CreateAclTensor(dHost, {3, 4}, &dAddr, aclDataType::ACL_FLOAT, &dst) == 0, return 1);
    CHECK_RET(CreateAclTensor(sHost, {6}, &sAddr, aclDataType::ACL_FLOAT, &src) == 0, return 1);
    CHECK_RET(CreateAclTensor(zeros, {3, 4}, &yAddr, aclDataType::ACL_FLOAT, &y) == 0, return 1);
    Meta box;
    CHECK_RET(MakeMeta<int64_t>({{2, 2}, {4, 1}, {1}, {2, 2}, {2, 1}, {0}}, aclDataType::ACL_INT64, box) == 0,
              return 1);
    CHECK_RET(Run(stream, dst, box, src, y) == 0, return 1);
    std::vector<float> got;
    CHECK_RET(Read(yAddr, 12, got) == ACL_SUCCESS, return 1);
    std::vector<float> want = dHost;
    want[1] = 10;
    want[2] = 20;
    want[5] = 30;
    want[6] = 40;
    for (int i = 0; i < 12; i++) {
        CHECK_RET(got[i] == want[i], LOG_PRINT("box: y[%d] = %f, expected %f\n", i, got[i], want[i]); return 1);
    }

    // 3. In place (dst_out is dst): column 3 of every row takes src[5].
    Meta column;
    CHECK_RET(MakeMeta<int64_t>({{3}, {4}, {3}, {3}, {0}, {5}}, aclDataType::ACL_INT64, column) == 0, return 1);
    CHECK_RET(Run(stream, dst, column, src, dst) == 0, return 1);
    CHECK_RET(Read(dAddr, 12, got) == ACL_SUCCESS, return 1);
    for (int i = 0; i < 12; i++) {
        float w = (i % 4 == 3) ? 60.0f : dHost[i];
        CHECK_RET(got[i] == w, LOG_PRINT("in place: dst[%d] = %f, expected %f\n", i, got[i], w); return 1);
    }

    // 4. The first phase's rules (no executor written).
    uint64_t workspaceSize = 0;
    aclOpExecutor* unused = nullptr;
    Meta mixed, past, differ;
    CHECK_RET(MakeMeta<int32_t>({{2}}, aclDataType::ACL_INT32, mixed) == 0, return 1);
    ret = aclnnViewCopyGetWorkspaceSize(dst, mixed.t[0], box.t[1], box.t[2], src, box.t[3], box.t[4], box.t[5], y,
                                        &workspaceSize, &unused);
    CHECK_RET(ret == 161002 && unused == nullptr, LOG_PRINT("mixed metadata dtypes: %d\n", ret); return 1);
    CHECK_RET(MakeMeta<int64_t>({{2}, {12}, {0}, {2}, {1}, {0}}, aclDataType::ACL_INT64, past) == 0, return 1);
    ret = aclnnViewCopyGetWorkspaceSize(dst, past.t[0], past.t[1], past.t[2], src, past.t[3], past.t[4], past.t[5], y,
                                        &workspaceSize, &unused);
    CHECK_RET(ret == 161002 && unused == nullptr, LOG_PRINT("window past the end: %d\n", ret); return 1);
    CHECK_RET(MakeMeta<int64_t>({{2}, {1}, {0}, {3}, {1}, {0}}, aclDataType::ACL_INT64, differ) == 0, return 1);
    ret = aclnnViewCopyGetWorkspaceSize(dst, differ.t[0], differ.t[1], differ.t[2], src, differ.t[3], differ.t[4],
                                        differ.t[5], y, &workspaceSize, &unused);
    CHECK_RET(ret == 161002 && unused == nullptr, LOG_PRINT("sizes differ: %d\n", ret); return 1);
    ret = aclnnViewCopyGetWorkspaceSize(dst, box.t[0], box.t[1], box.t[2], nullptr, box.t[3], box.t[4], box.t[5], y,
                                        &workspaceSize, &unused);
    CHECK_RET(ret == 161001 && unused == nullptr, LOG_PRINT("null src: %d\n", ret); return 1);

    for (Meta* m : {&box, &column, &mixed, &past, &differ}) {
        FreeMeta(*m);
    }
    aclDestroyTensor(dst);
    aclDestroyTensor(src);
    aclDestroyTensor(y);
    aclrtFree(dAddr);
    aclrtFree(sAddr);
    aclrtFree(yAddr);
    aclrtDestroyStream(stream);
    aclrtResetDevice(deviceId);
    aclFinalize();
    LOG_PRINT("view_copy: ok\n");
    return 0;
}
