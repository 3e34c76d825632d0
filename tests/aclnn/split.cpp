// aclnnSplitTensor / aclnnSplitWithSize in the style of CANN's samples: a
// 4x2 float tensor split by 2 along dim 0 into an output aclTensorList
// (whose destroy also destroys its tensors: no second destroy, unlike
// CANN's sample, docs/ops.md §12), then split by sizes {1, 0, 1} along
// dim 1 of a transposed int32 view into outputs of which one is
// transposed; and the first phase's rules.
#include <iostream>
#include <vector>
#include "acl/acl.h"
#include "aclnnop/aclnn_split_tensor.h"
#include "aclnnop/aclnn_split_with_size.h"
#include "common.h"

typedef aclnnStatus (*Run)(void*, uint64_t, aclOpExecutor*, aclrtStream);

static int Launch(aclnnStatus first, const uint64_t& workspaceSize, aclOpExecutor* const& executor, Run run,
                  aclrtStream stream, const char* name)
{
    CHECK_RET(first == ACL_SUCCESS, LOG_PRINT("%sGetWorkspaceSize failed. ERROR: %d\n", name, first); return first);
    void* workspaceAddr = nullptr;
    if (workspaceSize > 0) {
        auto ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
        CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret); return ret);
    }
    auto ret = run(workspaceAddr, workspaceSize, executor, stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("%s failed. ERROR: %d\n", name, ret); return ret);
    ret = aclrtSynchronizeStream(stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n", ret); return ret);
    if (workspaceAddr != nullptr) {
        aclrtFree(workspaceAddr);
    }
    return 0;
}

template <typename T>
static int Expect(void* deviceAddr, const std::vector<T>& want, const char* what)
{
    std::vector<T> got(want.size(), 0);
    auto ret = ReadBack(deviceAddr, got);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("copy result failed. ERROR: %d\n", ret); return ret);
    for (size_t i = 0; i < want.size(); i++) {
        LOG_PRINT("%s[%zu] is: %g\n", what, i, (double)got[i]);
        CHECK_RET(got[i] == want[i], LOG_PRINT("%s[%zu] should be %g\n", what, i, (double)want[i]); return 1);
    }
    return 0;
}

int main()
{
    int32_t deviceId = 0;
    aclrtStream stream;
    auto ret = Init(deviceId, &stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("Init acl failed. ERROR: %d\n", ret); return ret);

    // 1. SplitTensor: [4, 2] by 2 along dim 0 into two [2, 2].
    std::vector<int64_t> selfShape = {4, 2}, outShape = {2, 2};
    std::vector<float> selfHostData = {0, 1, 2, 3, 4, 5, 6, 7};
    std::vector<float> zeros(4, 0);
    void *selfDeviceAddr = nullptr, *out0Addr = nullptr, *out1Addr = nullptr;
    aclTensor *self = nullptr, *out0 = nullptr, *out1 = nullptr;
    ret = CreateAclTensor(selfHostData, selfShape, &selfDeviceAddr, aclDataType::ACL_FLOAT, &self);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(zeros, outShape, &out0Addr, aclDataType::ACL_FLOAT, &out0);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(zeros, outShape, &out1Addr, aclDataType::ACL_FLOAT, &out1);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    std::vector<aclTensor*> outs = {out0, out1};
    aclTensorList* outList = aclCreateTensorList(outs.data(), outs.size());
    CHECK_RET(outList != nullptr, LOG_PRINT("aclCreateTensorList failed\n"); return 1);
    uint64_t workspaceSize = 0;
    aclOpExecutor* executor;
    ret = Launch(aclnnSplitTensorGetWorkspaceSize(self, 2, 0, outList, &workspaceSize, &executor), workspaceSize,
                 executor, aclnnSplitTensor, stream, "aclnnSplitTensor");
    CHECK_RET(ret == 0, return ret);
    CHECK_RET(Expect(out0Addr, std::vector<float>{0, 1, 2, 3}, "out0") == 0, return 1);
    CHECK_RET(Expect(out1Addr, std::vector<float>{4, 5, 6, 7}, "out1") == 0, return 1);

    // 2. SplitWithSize {1, 0, 1} along dim 1 of a transposed [3, 2] int32
    // view of a [2, 3] buffer: pieces [3, 1], [3, 0], [3, 1]; the first
    // written through a view with a gap (stride 2).
    std::vector<int32_t> mHost = {1, 2, 3, 4, 5, 6};
    std::vector<int64_t> mShape = {2, 3};
    void* mAddr = nullptr;
    aclTensor* m = nullptr;
    ret = CreateAclTensor(mHost, mShape, &mAddr, aclDataType::ACL_INT32, &m);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    std::vector<int64_t> tShape = {3, 2}, tStrides = {1, 3}, tStorage = {6};
    aclTensor* mT = aclCreateTensor(tShape.data(), tShape.size(), aclDataType::ACL_INT32, tStrides.data(), 0,
                                    aclFormat::ACL_FORMAT_ND, tStorage.data(), tStorage.size(), mAddr);
    std::vector<int32_t> gapHost(6, -1), lastHost(3, 0);
    void *gapAddr = nullptr, *emptyAddr = nullptr, *lastAddr = nullptr;
    aclTensor *unusedGap = nullptr, *last = nullptr;
    ret = CreateAclTensor(gapHost, std::vector<int64_t>{6}, &gapAddr, aclDataType::ACL_INT32, &unusedGap);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    std::vector<int64_t> pShape = {3, 1}, pStrides = {2, 1}, pStorage = {6};
    aclTensor* p0 = aclCreateTensor(pShape.data(), pShape.size(), aclDataType::ACL_INT32, pStrides.data(), 0,
                                    aclFormat::ACL_FORMAT_ND, pStorage.data(), pStorage.size(), gapAddr);
    aclrtMalloc(&emptyAddr, 32, ACL_MEM_MALLOC_HUGE_FIRST);
    std::vector<int64_t> eShape = {3, 0};
    aclTensor* p1 = aclCreateTensor(eShape.data(), eShape.size(), aclDataType::ACL_INT32, nullptr, 0,
                                    aclFormat::ACL_FORMAT_ND, eShape.data(), eShape.size(), emptyAddr);
    ret = CreateAclTensor(lastHost, pShape, &lastAddr, aclDataType::ACL_INT32, &last);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    std::vector<aclTensor*> pieces = {p0, p1, last};
    aclTensorList* pieceList = aclCreateTensorList(pieces.data(), pieces.size());
    std::vector<int64_t> sizes = {1, 0, 1};
    aclIntArray* splitSize = aclCreateIntArray(sizes.data(), sizes.size());
    ret = Launch(aclnnSplitWithSizeGetWorkspaceSize(mT, splitSize, 1, pieceList, &workspaceSize, &executor),
                 workspaceSize, executor, aclnnSplitWithSize, stream, "aclnnSplitWithSize");
    CHECK_RET(ret == 0, return ret);
    // The view is [[1,4],[2,5],[3,6]]: column 0 into rows 0, 2, 4 of gap.
    CHECK_RET(Expect(gapAddr, std::vector<int32_t>{1, -1, 2, -1, 3, -1}, "piece0") == 0, return 1);
    CHECK_RET(Expect(lastAddr, std::vector<int32_t>{4, 5, 6}, "piece2") == 0, return 1);

    // 3. The first phase's rules.
    aclOpExecutor* unused = nullptr;
    ret = aclnnSplitTensorGetWorkspaceSize(self, 3, 0, outList, &workspaceSize, &unused);
    CHECK_RET(ret == 161002 && unused == nullptr, LOG_PRINT("2 pieces for 2 outputs of 3 rows: %d\n", ret); return 1);
    ret = aclnnSplitTensorGetWorkspaceSize(self, 2, 2, outList, &workspaceSize, &unused);
    CHECK_RET(ret == 161002, LOG_PRINT("dim 2 of rank 2: %d\n", ret); return 1);
    std::vector<int64_t> badSizes = {2, 1};
    aclIntArray* bad = aclCreateIntArray(badSizes.data(), badSizes.size());
    ret = aclnnSplitWithSizeGetWorkspaceSize(self, bad, 0, outList, &workspaceSize, &unused);
    CHECK_RET(ret == 161002, LOG_PRINT("sizes summing to 3 of 4: %d\n", ret); return 1);
    ret = aclnnSplitTensorGetWorkspaceSize(self, 2, 0, nullptr, &workspaceSize, &unused);
    CHECK_RET(ret == 161001, LOG_PRINT("null out: %d\n", ret); return 1);
    ret = aclnnSplitWithSizeGetWorkspaceSize(self, nullptr, 0, outList, &workspaceSize, &unused);
    CHECK_RET(ret == 161001, LOG_PRINT("null splitSize: %d\n", ret); return 1);

    // A list destroys its tensors.
    aclDestroyTensorList(outList);
    aclDestroyTensorList(pieceList);
    aclDestroyIntArray(splitSize);
    aclDestroyIntArray(bad);
    aclDestroyTensor(self);
    aclDestroyTensor(m);
    aclDestroyTensor(mT);
    aclDestroyTensor(unusedGap);
    aclrtFree(selfDeviceAddr);
    aclrtFree(out0Addr);
    aclrtFree(out1Addr);
    aclrtFree(mAddr);
    aclrtFree(gapAddr);
    aclrtFree(emptyAddr);
    aclrtFree(lastAddr);
    aclrtDestroyStream(stream);
    aclrtResetDevice(deviceId);
    aclFinalize();
    LOG_PRINT("split: ok\n");
    return 0;
}
