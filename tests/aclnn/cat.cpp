// aclnnCat in the style of CANN's sample, as a KV cache grows: per head,
// the past keys (2 heads x 3 positions) joined with this step's key
// (2 heads x 1 position) along the position dim (-1), through an
// aclTensorList that owns its members. A 1-D empty member, as PyTorch
// passes for "nothing cached yet", is dropped. Then members of mixed
// dtypes, joined in their promoted dtype.
#include <iostream>
#include <vector>
#include "acl/acl.h"
#include "aclnnop/aclnn_cat.h"
#include "common.h"

int main()
{
    int32_t deviceId = 0;
    aclrtStream stream;
    auto ret = Init(deviceId, &stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("Init acl failed. ERROR: %d\n", ret); return ret);

    std::vector<int64_t> pastShape = {2, 3}, stepShape = {2, 1}, noneShape = {0}, outShape = {2, 4};
    void *pastDeviceAddr = nullptr, *stepDeviceAddr = nullptr, *noneDeviceAddr = nullptr,
         *outDeviceAddr = nullptr;
    aclTensor *past = nullptr, *step = nullptr, *none = nullptr, *out = nullptr;
    std::vector<float> pastHostData = {0.5, 1.5, 2.5, 10, 11, 12};
    std::vector<float> stepHostData = {3.5, 13};
    std::vector<float> outHostData(8, 0);
    ret = CreateAclTensor(pastHostData, pastShape, &pastDeviceAddr, aclDataType::ACL_FLOAT, &past);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(stepHostData, stepShape, &stepDeviceAddr, aclDataType::ACL_FLOAT, &step);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    // The empty member: a 1-D view of no element over a small allocation.
    ret = aclrtMalloc(&noneDeviceAddr, sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtMalloc failed. ERROR: %d\n", ret); return ret);
    std::vector<int64_t> noneStrides = {1}, noneStorage = {1};
    none = aclCreateTensor(noneShape.data(), noneShape.size(), aclDataType::ACL_FLOAT, noneStrides.data(), 0,
                           aclFormat::ACL_FORMAT_ND, noneStorage.data(), noneStorage.size(), noneDeviceAddr);
    CHECK_RET(none != nullptr, LOG_PRINT("aclCreateTensor failed\n"); return 1);
    ret = CreateAclTensor(outHostData, outShape, &outDeviceAddr, aclDataType::ACL_FLOAT, &out);
    CHECK_RET(ret == ACL_SUCCESS, return ret);

    // The list owns its members from here on: destroying it destroys them.
    std::vector<aclTensor*> members{none, past, step};
    aclTensorList* tensors = aclCreateTensorList(members.data(), members.size());
    CHECK_RET(tensors != nullptr, LOG_PRINT("aclCreateTensorList failed\n"); return 1);

    int64_t dim = -1;
    uint64_t workspaceSize = 0;
    aclOpExecutor* executor;
    ret = aclnnCatGetWorkspaceSize(tensors, dim, out, &workspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnCatGetWorkspaceSize failed. ERROR: %d\n", ret); return ret);
    void* workspaceAddr = nullptr;
    if (workspaceSize > 0) {
        ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
        CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret); return ret);
    }
    ret = aclnnCat(workspaceAddr, workspaceSize, executor, stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnCat failed. ERROR: %d\n", ret); return ret);
    ret = aclrtSynchronizeStream(stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n", ret); return ret);

    std::vector<float> resultData(8, 0);
    ret = ReadBack(outDeviceAddr, resultData);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("copy result failed. ERROR: %d\n", ret); return ret);
    const float want[] = {0.5, 1.5, 2.5, 3.5, 10, 11, 12, 13};
    for (size_t i = 0; i < resultData.size(); i++) {
        LOG_PRINT("result[%zu] is: %f\n", i, resultData[i]);
        CHECK_RET(resultData[i] == want[i], LOG_PRINT("result[%zu] should be %f\n", i, want[i]); return 1);
    }

    // A shape off the rule is refused in the first phase (161002), and
    // nothing is written to the executor.
    aclOpExecutor* refused = nullptr;
    ret = aclnnCatGetWorkspaceSize(tensors, 0, out, &workspaceSize, &refused);
    CHECK_RET(ret == 161002 && refused == nullptr,
              LOG_PRINT("a mismatched join should fail with 161002, got %d\n", ret); return 1);

    // Members of mixed dtypes meet in their promoted dtype (INT32 with
    // FLOAT16: FLOAT16, where 2049 is 2048), then go to out's FLOAT.
    std::vector<int64_t> intShape = {2}, halfShape = {1}, mixedShape = {3};
    void *intDeviceAddr = nullptr, *halfDeviceAddr = nullptr, *mixedDeviceAddr = nullptr;
    aclTensor *ints = nullptr, *halves = nullptr, *mixedOut = nullptr;
    std::vector<int32_t> intHostData = {2049, 7};
    std::vector<uint16_t> halfHostData = {0x3800}; // 0.5
    std::vector<float> mixedHostData(3, 0);
    ret = CreateAclTensor(intHostData, intShape, &intDeviceAddr, aclDataType::ACL_INT32, &ints);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(halfHostData, halfShape, &halfDeviceAddr, aclDataType::ACL_FLOAT16, &halves);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    ret = CreateAclTensor(mixedHostData, mixedShape, &mixedDeviceAddr, aclDataType::ACL_FLOAT, &mixedOut);
    CHECK_RET(ret == ACL_SUCCESS, return ret);
    std::vector<aclTensor*> mixedMembers{ints, halves};
    aclTensorList* mixed = aclCreateTensorList(mixedMembers.data(), mixedMembers.size());
    CHECK_RET(mixed != nullptr, LOG_PRINT("aclCreateTensorList failed\n"); return 1);
    uint64_t mixedWorkspaceSize = 0;
    ret = aclnnCatGetWorkspaceSize(mixed, 0, mixedOut, &mixedWorkspaceSize, &executor);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnCatGetWorkspaceSize (mixed) failed. ERROR: %d\n", ret); return ret);
    void* mixedWorkspaceAddr = nullptr;
    if (mixedWorkspaceSize > 0) {
        ret = aclrtMalloc(&mixedWorkspaceAddr, mixedWorkspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
        CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret); return ret);
    }
    ret = aclnnCat(mixedWorkspaceAddr, mixedWorkspaceSize, executor, stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclnnCat (mixed) failed. ERROR: %d\n", ret); return ret);
    ret = aclrtSynchronizeStream(stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n", ret); return ret);
    ret = ReadBack(mixedDeviceAddr, mixedHostData);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("copy result failed. ERROR: %d\n", ret); return ret);
    const float mixedWant[] = {2048, 7, 0.5};
    for (size_t i = 0; i < mixedHostData.size(); i++) {
        LOG_PRINT("mixed result[%zu] is: %f\n", i, mixedHostData[i]);
        CHECK_RET(mixedHostData[i] == mixedWant[i],
                  LOG_PRINT("mixed result[%zu] should be %f\n", i, mixedWant[i]); return 1);
    }
    aclDestroyTensorList(mixed);
    aclDestroyTensor(mixedOut);
    aclrtFree(intDeviceAddr);
    aclrtFree(halfDeviceAddr);
    aclrtFree(mixedDeviceAddr);
    if (mixedWorkspaceAddr != nullptr) {
        aclrtFree(mixedWorkspaceAddr);
    }

    aclDestroyTensorList(tensors);
    aclDestroyTensor(out);
    aclrtFree(pastDeviceAddr);
    aclrtFree(stepDeviceAddr);
    aclrtFree(noneDeviceAddr);
    aclrtFree(outDeviceAddr);
    if (workspaceAddr != nullptr) {
        aclrtFree(workspaceAddr);
    }
    aclrtDestroyStream(stream);
    aclrtResetDevice(deviceId);
    aclFinalize();
    LOG_PRINT("cat: ok\n");
    return 0;
}
