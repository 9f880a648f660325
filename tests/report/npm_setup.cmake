# npm_setup.cmake -- test fixture: copies the browser test sources into the
# build tree and installs their exact dependencies (package-lock.json) there.
file(MAKE_DIRECTORY ${DST})
file(GLOB _files ${SRC}/*.mjs ${SRC}/package.json ${SRC}/package-lock.json)
file(COPY ${_files} DESTINATION ${DST})
if(NOT EXISTS ${DST}/node_modules/playwright-core/package.json)
  execute_process(COMMAND ${NPM} ci --no-audit --no-fund --loglevel=error
                  WORKING_DIRECTORY ${DST} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "npm ci failed in ${DST} (network needed once for playwright-core)")
  endif()
endif()
