# npm_setup.cmake -- test fixture: copies the browser test sources into the
# build tree and installs their exact dependencies (package-lock.json) there,
# again whenever the lock file changes. Needs the npm registry once.
file(MAKE_DIRECTORY ${DST})
set(_old "")
if(EXISTS ${DST}/package-lock.json)
  file(READ ${DST}/package-lock.json _old)
endif()
file(READ ${SRC}/package-lock.json _new)
file(GLOB _files ${SRC}/*.mjs ${SRC}/package.json ${SRC}/package-lock.json)
file(COPY ${_files} DESTINATION ${DST})
if(NOT EXISTS ${DST}/node_modules/playwright-core/package.json OR NOT _old STREQUAL _new)
  execute_process(COMMAND ${NPM} ci --no-audit --no-fund --loglevel=error
                  WORKING_DIRECTORY ${DST} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "npm ci failed in ${DST} (the npm registry is needed once for playwright-core)")
  endif()
endif()
