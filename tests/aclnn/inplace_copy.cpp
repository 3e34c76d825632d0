// aclnnInplaceCopy in the style of CANN's sample: a float16 source, made
// with aclFloatToFloat16, broadcast along rows into a 2x3 float tensor (a
// cast and a broadcast), read back and checked.
#include <iostream>
#include <vector>
#include "acl/acl.h"
#include "aclnnop/aclnn_copy.h"
#include "common.h"

int main()
{
    int32_t deviceId = 0;
    aclrtStream stream;
    auto ret = Init(deviceId, &stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("Init acl failed. ERROR: %d\n", ret); return ret);

    std::vector<int64_t> selfRefShape = {2, 3}, srcShape = {1, 3};
    void *selfRefDeviceAddr = nullptr, *srcDeviceAddr = nullptr;
    aclTensor *selfRef = nullptr, *src = nullptr;
    std::vector<float> selfRefHostData(6, 0);
    std::vector<aclFloat16> srcHostData = {aclFloatToFloat16(1.5f), aclFloatToFloat16(-2.0f),
                                           aclFloatToFloat16(65504.0f)};
    CHECK_RET(aclFloat16ToFloat(srcHostData[0]) == 1.5f, LOG_PRINT("aclFloat16ToFloat\n"); return 1);
    CHECK_RET(aclDataTypeSize(ACL_FLOAT16) == 2 && aclDataTypeSize(ACL_INT64) == 8,
              LOG_PRINT("aclDataTypeSize\n"); return 1);
    ret = CreateAclTensor(selfRefHostData, selfRefShape, &selfRefDeviceAddr, aclDataType::ACL_FLOAT, &selfRef);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(srcHostData, srcShape, &srcDeviceAddr, aclDataType::ACL_FLOAT16, &src);
    CHECK_RET(ret == ACL_SUCCESS, return ret);

    uint64_t workspaceSize = 0;
    aclOpExecutor* executor;
    ret = aclnnInplaceCopyGetWorkspaceSize(selfRef, src, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnInplaceCopyGetWorkspaceSize failed. ERROR: %d\n", ret); return ret);
    void* workspaceAddr = nullptr;
    if (workspaceSize > 0) {
        ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
        CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret); return ret);
    }
    ret = aclnnInplaceCopy(workspaceAddr, workspaceSize, executor, stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnInplaceCopy failed. ERROR: %d\n", ret); return ret);
    ret = aclrtSynchronizeStream(stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n", ret); return ret);

    std::vector<float> resultData(6, 0);
    ret = ReadBack(selfRefDeviceAddr, resultData);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("copy result failed. ERROR: %d\n", ret); return ret);
    const float want[] = {1.5f, -2.0f, 65504.0f, 1.5f, -2.0f, 65504.0f};
    for (size_t i = 0; i < resultData.size(); i++) {
        LOG_PRINT("result[%zu] is: %f\n", i, resultData[i]);
        CHECK_RET(resultData[i] == want[i], LOG_PRINT("result[%zu] should be %f\n", i, want[i]); return 1);
    }

    aclDestroyTensor(selfRef);
    aclDestroyTensor(src);
    aclrtFree(selfRefDeviceAddr);
    aclrtFree(srcDeviceAddr);
    if (workspaceSize > 0) {
        aclrtFree(workspaceAddr);
    }
    aclrtDestroyStream(stream);
    aclrtResetDevice(deviceId);
    aclFinalize();
    LOG_PRINT("inplace_copy: ok\n");
    return 0;
}
