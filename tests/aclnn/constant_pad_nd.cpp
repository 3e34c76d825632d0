// aclnnConstantPadNd in the style of CANN's sample: a 2x2 int32 tensor
// padded by one on the left and right of the last dim and one below the
// first, with the value 7 (an aclIntArray and an aclScalar).
#include <iostream>
#include <vector>
#include "acl/acl.h"
#include "aclnnop/aclnn_constant_pad_nd.h"
#include "common.h"

int main()
{
    int32_t deviceId = 0;
    aclrtStream stream;
    auto ret = Init(deviceId, &stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("Init acl failed. ERROR: %d\n", ret); return ret);

    std::vector<int64_t> selfShape = {2, 2}, outShape = {3, 4};
    void *selfDeviceAddr = nullptr, *outDeviceAddr = nullptr;
    aclTensor *self = nullptr, *out = nullptr;
    std::vector<int32_t> selfHostData = {1, 2, 3, 4};
    std::vector<int32_t> outHostData(12, 0);
    ret = CreateAclTensor(selfHostData, selfShape, &selfDeviceAddr, aclDataType::ACL_INT32, &self);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(outHostData, outShape, &outDeviceAddr, aclDataType::ACL_INT32, &out);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    // From the last dim backwards: (left, right) of dim 1, then (top, bottom) of dim 0.
    std::vector<int64_t> padData = {1, 1, 0, 1};
    aclIntArray* pad = aclCreateIntArray(padData.data(), padData.size());
    CHECK_RET(pad != nullptr, return 1);
    int32_t valueData = 7;
    aclScalar* value = aclCreateScalar(&valueData, aclDataType::ACL_INT32);
    CHECK_RET(value != nullptr, return 1);

    uint64_t workspaceSize = 0;
    aclOpExecutor* executor;
    ret = aclnnConstantPadNdGetWorkspaceSize(self, pad, value, out, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnConstantPadNdGetWorkspaceSize failed. ERROR: %d\n", ret); return ret);
    void* workspaceAddr = nullptr;
    if (workspaceSize > 0) {
        ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
        CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret); return ret);
    }
    ret = aclnnConstantPadNd(workspaceAddr, workspaceSize, executor, stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnConstantPadNd failed. ERROR: %d\n", ret); return ret);
    ret = aclrtSynchronizeStream(stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n", ret); return ret);

    std::vector<int32_t> resultData(12, 0);
    ret = ReadBack(outDeviceAddr, resultData);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("copy result failed. ERROR: %d\n", ret); return ret);
    const int32_t want[] = {7, 1, 2, 7, 7, 3, 4, 7, 7, 7, 7, 7};
    for (size_t i = 0; i < resultData.size(); i++) {
        LOG_PRINT("result[%zu] is: %d\n", i, resultData[i]);
        CHECK_RET(resultData[i] == want[i], LOG_PRINT("result[%zu] should be %d\n", i, want[i]); return 1);
    }

    aclDestroyTensor(self);
    aclDestroyTensor(out);
    aclDestroyIntArray(pad);
    aclDestroyScalar(value);
    aclrtFree(selfDeviceAddr);
    aclrtFree(outDeviceAddr);
    if (workspaceSize > 0) {
        aclrtFree(workspaceAddr);
    }
    aclrtDestroyStream(stream);
    aclrtResetDevice(deviceId);
    aclFinalize();
    LOG_PRINT("constant_pad_nd: ok\n");
    return 0;
}
