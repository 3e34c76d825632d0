// aclnnExpand in the style of CANN's sample: a [3, 1] float tensor broadcast to [2, 3, 4] (docs/ops.md §21).
// It checks every element against the formula, then the first phase's
// rules: a size shorter than the rank, a dim neither equal nor 1, a -1 entry, a null size.
#include <iostream>
#include <vector>
#include "acl/acl.h"
#include "aclnnop/aclnn_expand.h"
#include "common.h"

int main()
{
    int32_t deviceId = 0;
    aclrtStream stream;
    auto ret = Init(deviceId, &stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("Init acl failed. ERROR: %d\n", ret); return ret);

    std::vector<int64_t> selfShape = {3, 1}, outShape = {2, 3, 4}, sizeData = {2, 3, 4};
    void *selfDeviceAddr = nullptr, *outDeviceAddr = nullptr;
    aclTensor *self = nullptr, *out = nullptr;
    std::vector<float> selfHostData = {1.5f, -2, 7};
    std::vector<float> outHostData(24, -1);
    ret = CreateAclTensor(selfHostData, selfShape, &selfDeviceAddr, aclDataType::ACL_FLOAT, &self);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(outHostData, outShape, &outDeviceAddr, aclDataType::ACL_FLOAT, &out);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    aclIntArray* size = aclCreateIntArray(sizeData.data(), sizeData.size());

    uint64_t workspaceSize = 0;
    aclOpExecutor* executor;
    ret = aclnnExpandGetWorkspaceSize(self, size, out, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnExpandGetWorkspaceSize failed. ERROR: %d\n", ret); return ret);
    void* workspaceAddr = nullptr;
    if (workspaceSize > 0) {
        ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
        CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret); return ret);
    }
    ret = aclnnExpand(workspaceAddr, workspaceSize, executor, stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnExpand failed. ERROR: %d\n", ret); return ret);
    ret = aclrtSynchronizeStream(stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n", ret); return ret);
    std::vector<float> resultData(outHostData.size(), 0);
    ret = ReadBack(outDeviceAddr, resultData);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("copy result failed. ERROR: %d\n", ret); return ret);
    // out[a][b][c] = self[b][0].
    for (int a = 0; a < 2; a++) {
        for (int b = 0; b < 3; b++) {
            for (int c = 0; c < 4; c++) {
                float got = resultData[(a * 3 + b) * 4 + c], want = selfHostData[b];
                CHECK_RET(got == want, LOG_PRINT("out[%d][%d][%d] is %f, should be %f\n", a, b, c, got, want);
                          return 1);
            }
        }
    }

    // The first phase's rules (no executor written).
    aclOpExecutor* unused = nullptr;
    std::vector<int64_t> shortSize = {4}, mismatch = {2, 5, 4}, minusOne = {2, -1, 4};
    aclIntArray* shortArr = aclCreateIntArray(shortSize.data(), shortSize.size());
    aclIntArray* misArr = aclCreateIntArray(mismatch.data(), mismatch.size());
    aclIntArray* m1Arr = aclCreateIntArray(minusOne.data(), minusOne.size());
    ret = aclnnExpandGetWorkspaceSize(self, shortArr, out, &workspaceSize, &unused);
    CHECK_RET(ret == 161002 && unused == nullptr, LOG_PRINT("size too short: %d\n", ret); return 1);
    ret = aclnnExpandGetWorkspaceSize(self, misArr, out, &workspaceSize, &unused);
    CHECK_RET(ret == 161002 && unused == nullptr, LOG_PRINT("dim mismatch: %d\n", ret); return 1);
    ret = aclnnExpandGetWorkspaceSize(self, m1Arr, out, &workspaceSize, &unused);
    CHECK_RET(ret == 161002 && unused == nullptr, LOG_PRINT("-1 entry: %d\n", ret); return 1);
    ret = aclnnExpandGetWorkspaceSize(self, nullptr, out, &workspaceSize, &unused);
    CHECK_RET(ret == 161001, LOG_PRINT("null size: %d\n", ret); return 1);

    aclDestroyTensor(self);
    aclDestroyTensor(out);
    aclDestroyIntArray(size);
    aclDestroyIntArray(shortArr);
    aclDestroyIntArray(misArr);
    aclDestroyIntArray(m1Arr);
    aclrtFree(selfDeviceAddr);
    aclrtFree(outDeviceAddr);
    if (workspaceAddr != nullptr) {
        aclrtFree(workspaceAddr);
    }
    aclrtDestroyStream(stream);
    aclrtResetDevice(deviceId);
    aclFinalize();
    LOG_PRINT("expand: ok\n");
    return 0;
}
